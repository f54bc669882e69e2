"""One renderer for every HTML view: self-contained report pages and notebook fragments.

See ``docs/html.md``. Each report is a function of its result and gives the
same bytes for the same input (the run report's times are left out unless
asked for).
"""

from metaplan.views.html.checks import merge_report, verify_report
from metaplan.views.html.data import DATA_FORMAT, read_report_data
from metaplan.views.html.notebook import mimebundle
from metaplan.views.html.reports import diff_report
from metaplan.views.html.runs import run_report

__all__ = ["DATA_FORMAT", "diff_report", "merge_report", "mimebundle", "read_report_data",
           "run_report", "verify_report"]
