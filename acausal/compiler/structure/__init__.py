"""Structural passes on integer equation graphs.

Matching, alias elimination, Pantelides, dummy derivatives, BLT and tearing.
"""
