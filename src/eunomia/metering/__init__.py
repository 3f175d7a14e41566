"""Metering a system's LLM traffic on the wire.

A system under test that reports no token usage (the current Athena module answers
``meta: {}``) is metered where its LLM calls pass: ``eunomia serve-model`` records every call it
serves (:class:`UsageRecorder`) and serves the record at ``GET /eunomia/usage``. A run reads it
(:class:`UsageSource`) and gives each call to the case whose request was in flight
(:func:`attribute`, online through :class:`UsageMeter`): exactly when one case was in flight,
otherwise by overlap, and says which.
"""

from eunomia.metering._attribute import Attribution, Claim, Window, attribute
from eunomia.metering._calls import (
    USAGE_PATH,
    AttributionMethod,
    CaseUsage,
    LLMCall,
    UsagePage,
)
from eunomia.metering._meter import MeterTotals, UsageMeter
from eunomia.metering._recorder import UsageRecorder
from eunomia.metering._source import UsageSource, usage_url

__all__ = [
    "USAGE_PATH",
    "Attribution",
    "AttributionMethod",
    "CaseUsage",
    "Claim",
    "LLMCall",
    "MeterTotals",
    "UsageMeter",
    "UsagePage",
    "UsageRecorder",
    "UsageSource",
    "Window",
    "attribute",
    "usage_url",
]
