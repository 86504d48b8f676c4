"""forbidden-global: an expression uses a capability the sandbox leaves out on purpose.

The sandbox has no clock, no randomness, no asynchrony and no I/O, so that an expression's
result is a pure function of its scope (expression-sandbox-spec.md, "Language surface"); each
such use throws or never completes when the node runs.
"""

from collections.abc import Iterator

from analysis.checks.context import RuleContext
from analysis.diagnostics import Diagnostic, Severity

RULE_ID = "forbidden-global"
SEVERITY = Severity.ERROR
SUMMARY = "An expression uses Date, Math.random, async, I/O or another absent global."

_CLOCK = (
    "a clock would make the result differ between runs, retries and resumes",
    "pass the time in as a workflow input",
)
_RANDOM = (
    "randomness would make the result differ between runs, retries and resumes",
    "derive the value from the inputs or an upstream node's output",
)
_ASYNC = (
    "evaluation is synchronous and pending jobs never run",
    "write a synchronous expression",
)
_IO = (
    "an expression has no I/O: no modules, no process, no network",
    "do the I/O in an agent node and read its result through `run.outputs`",
)
_REFLECTION = (
    "it observes or intercepts the engine (proxies, garbage collection)",
    "use plain objects and values",
)
_WHY = {
    "Date": _CLOCK,
    "performance": _CLOCK,
    "Math.random": _RANDOM,
    "crypto": _RANDOM,
    "Promise": _ASYNC,
    "async": _ASYNC,
    "await": _ASYNC,
    "queueMicrotask": _ASYNC,
    "setTimeout": _ASYNC,
    "setInterval": _ASYNC,
    "import": _IO,
    "require": _IO,
    "process": _IO,
    "fetch": _IO,
    "Proxy": _REFLECTION,
    "WeakRef": _REFLECTION,
    "FinalizationRegistry": _REFLECTION,
    "Intl": (
        "locale data differs between hosts, so results would too",
        "format values explicitly (for example with `toFixed` or string methods)",
    ),
}


def check(ctx: RuleContext) -> Iterator[Diagnostic]:
    for site in ctx.expression_sites:
        for use in site.facts.forbidden:
            why, fix = _WHY[use.name]
            yield site.diagnostic(
                ctx,
                RULE_ID,
                SEVERITY,
                use.span,
                f"{site.label} uses `{use.name}`, which the expression sandbox does not provide: "
                f"{why}. Instead, {fix}.",
                data={"name": use.name},
            )
