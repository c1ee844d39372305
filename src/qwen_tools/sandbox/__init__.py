"""Kernel-enforced confinement for the programs we run on the model's behalf (Landlock)."""
