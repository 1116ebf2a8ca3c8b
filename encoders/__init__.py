"""Encoders: player views to fixed-size tensors (named slices), moves to action ids."""
