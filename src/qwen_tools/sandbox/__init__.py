"""Kernel-enforced confinement for the programs we run on the model's behalf (Landlock).

* :mod:`.landlock` — starting a program that can read only what it was allowed to.
"""
