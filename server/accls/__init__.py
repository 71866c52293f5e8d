"""accls: suggest and check OpenACC/OpenMP pragmas for C loops."""

__version__ = "0.1.0"
