"""What ``nos show roce``, ``nos roce check`` and ``GET /api/v1/intents/roce[/check]`` report (pure): the
intent as configured and as resolved, whether CONFIG_DB is what it expands to, and the lossless check.

The check's expectation is the switch's intent when it holds an enabled one; otherwise a profile's
defaults (``nvidia`` unless another is asked for), so a hand-written configuration can be checked too.
"""

from __future__ import annotations

from typing import Any

from nos.config.transaction import plan_changes
from nos.intent.roce import facts_for, intent_of, plan
from nos.intent.roce.check import ApplBuffers, Issue, check
from nos.intent.roce.model import IntentError, RoceIntent, default_intent, resolve
from nos.schema import tables as t
from nos.schema.config import Config
from nos.schema.config.roce import CFG_ROCE_TABLE_NAME, ROCE_KEY

Report = dict[str, Any]


def expectation(config: Config, profile: str | None = None) -> tuple[RoceIntent, str]:
    """What to check against, and where it came from: the switch's intent (``intent``, or ``intent
    (disabled)``: its parameters still say what lossless means), else ``profile <name>``."""
    row = config.get(CFG_ROCE_TABLE_NAME, {}).get(ROCE_KEY)
    if profile is None and row is not None:
        try:
            intent = resolve(row)
        except IntentError:
            pass
        else:
            return intent, "intent" if intent.enabled else "intent (disabled)"
    name = profile or "nvidia"
    return default_intent(name), f"profile {name}"


def check_report(config: Config, appl: ApplBuffers | None = None, profile: str | None = None) -> Report:
    """The lossless check's result: expectation, ports checked, issues."""
    expect, source = expectation(config, profile)
    issues = check(config, expect, facts_for(config), appl)
    ports = config.get(t.CFG_PORT_TABLE_NAME, {})
    checked = [p for p in expect.ports if p in ports] if expect.ports is not None else list(ports)
    return {"expected": source, "mode": expect.mode, "priorities": list(expect.priorities),
            "ports": len(checked), "lossless": not issues, "issues": [i.as_dict() for i in issues]}


def intent_report(config: Config) -> Report:
    """The intent row, its resolution (or why it is refused) and whether CONFIG_DB matches it."""
    row = config.get(CFG_ROCE_TABLE_NAME, {}).get(ROCE_KEY)
    report: Report = {"configured": row, "enabled": False, "resolved": None, "error": None, "in_sync": None,
                      "pending_changes": None}
    try:
        intent = intent_of(config)
        pending = plan_changes(config, plan(config))
    except IntentError as exc:
        report["error"] = [str(e) for e in exc.errors]
        return report
    report.update(enabled=intent is not None, resolved=intent.model_dump() if intent else None,
                  in_sync=not pending, pending_changes=len(pending))
    return report


def show_report(config: Config, appl: ApplBuffers | None = None) -> Report:
    return {"intent": intent_report(config), "check": check_report(config, appl)}


def issue_rows(issues: list[dict[str, Any]]) -> list[list[str]]:
    """Table rows (Port, Priority, Kind, Detail, Fix) for printing."""
    return [[str(i["port"]), "" if i["priority"] is None else str(i["priority"]), str(i["kind"]), str(i["detail"]),
             str(i["fix"])] for i in issues]


__all__ = ["Issue", "Report", "check_report", "expectation", "intent_report", "issue_rows", "show_report"]
