"""Structural passes on integer equation graphs: matching, alias elimination, Pantelides, dummy derivatives, BLT and tearing."""
