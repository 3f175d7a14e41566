"""``eunomia label``: tutors label cases in the browser, into the suite's own files.

A scenario's cases get the instructions tutors choose per criterion (``labels.yml`` beside the
manifest, read by :func:`eunomia.scenarios.load_scenario` as the cases' expected
instructions); the server shows each submission drawn beside the example solution, the
progress, and how much the labellers agree (Cohen's or Fleiss' kappa per criterion, with a
bootstrap interval over the cases). A judged task run's answers get 0-5 scores (``labels.yml``
in the suites' folder, read by the suite loader as the cases' ``human_score``), beside the
judge's agreement with them. Saves are atomic and checked against the revision the
form was made from, so two tabs or two labellers never overwrite each other unseen.
"""

from eunomia.labelling._app import create_app, serve_forever
from eunomia.labelling._book import Book
from eunomia.labelling._runbook import RunBook
from eunomia.labelling._store import save_case_label, save_score, set_expected

__all__ = ["Book", "RunBook", "create_app", "save_case_label", "save_score", "serve_forever",
           "set_expected"]
