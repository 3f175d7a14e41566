"""Helpers shared by the test files (scripted stand-ins for outside services)."""
