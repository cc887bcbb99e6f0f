"""Pure symbolic functions (friction laws, smooth functions) that return sympy expressions."""
