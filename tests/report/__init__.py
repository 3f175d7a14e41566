"""Tests of the HTML report and the viewer."""
