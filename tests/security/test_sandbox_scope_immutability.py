"""Every container of the scope is frozen before authored code runs, whatever its shape.

The driver finds the containers with its own walk (sandbox/driver.js `deepFreeze`, tuned for
speed: lengths read once, a container frozen after its values are read). These tests walk the
whole scope from inside the VM and try every kind of write on every container, so a walk that
skips a level, an array, an empty container or an odd key fails here.
"""

from __future__ import annotations

import pytest

from sandbox import SandboxError, Scope, evaluate
from sandbox.scope import MAX_SCOPE_DEPTH

# Every container reachable from the bindings, with its path; a container reached twice would be
# listed twice (JSON has no sharing, so none is).
CONTAINERS = """(() => {
  const found = [];
  const pending = [["inputs", inputs], ["ctx", ctx], ["run", run]]
    .concat(typeof branches === "undefined" ? [] : [["branches", branches]]);
  while (pending.length > 0) {
    const [path, value] = pending.pop();
    found.push([path, value]);
    for (const key of Reflect.ownKeys(value)) {
      const descriptor = Object.getOwnPropertyDescriptor(value, key);
      if (!("value" in descriptor)) continue;
      const item = descriptor.value;
      if (typeof item === "object" && item !== null) pending.push([path + "/" + String(key), item]);
    }
  }
  return found;
})()"""

# Paths of containers that are extensible, or have a writable or configurable own property.
MUTABLE = f"""{CONTAINERS}.filter(([path, value]) => Object.isExtensible(value) ||
  Reflect.ownKeys(value).some(key => {{
    const descriptor = Object.getOwnPropertyDescriptor(value, key);
    return descriptor.configurable || descriptor.writable === true;
  }})).map(([path]) => path)"""

# Every write tried on every container it applies to; the paths where one changed anything or
# did not throw.
WRITABLE = f"""{CONTAINERS}.flatMap(([path, value]) => {{
  const snapshot = v => JSON.stringify([Reflect.ownKeys(v), Object.getPrototypeOf(v) === null,
    Object.isExtensible(v), v]);
  const keys = Reflect.ownKeys(value);
  const any = () => true, keyed = () => keys.length > 0, array = Array.isArray;
  const long = v => Array.isArray(v) && v.length > 1;
  return [
    [any, v => {{ v.added = 1; }}],
    [any, v => {{ v[0] = "x"; }}],
    [any, v => {{ v.__proto__ = null; }}],
    [any, v => {{ Object.setPrototypeOf(v, {{}}); }}],
    [any, v => {{ Object.defineProperty(v, "added", {{ value: 1 }}); }}],
    [keyed, v => {{ delete v[keys[0]]; }}],
    [keyed, v => {{ v[keys[0]] = "changed"; }}],
    [keyed, v => {{ Object.defineProperty(v, keys[0], {{ value: "changed" }}); }}],
    [array, v => {{ v.push(1); }}],
    [array, v => {{ v.length = 0; }}],
    [array, v => {{ v.fill(0); v.length === 0 && v.push(0); }}],
    [long, v => {{ v.sort(() => -1); }}],
    [long, v => {{ v.reverse(); }}],
    [long, v => {{ v.copyWithin(0, 1); }}],
  ].flatMap(([applies, write], index) => {{
    if (!applies(value)) return [];
    const before = snapshot(value);
    let threw = false;
    try {{ write(value); }} catch (refused) {{ threw = true; }}
    // A reordering that happens to leave the order as it was need not throw; nothing may change.
    const mustThrow = index < 11;
    return snapshot(value) !== before || (mustThrow && !threw) ? [path + " #" + index] : [];
  }});
}})"""


def chain(depth: int) -> object:
    value: object = {"leaf": [1, "two", None]}
    for level in range(depth):
        value = [value] if level % 2 else {"next": value}
    return value


SHAPES = {
    "mixed": Scope(
        inputs={"list": [[1, [2, [3, {}]]], [], {"a": [{"b": []}]}], "n": 1, "s": "x"},
        run_outputs={"node": {"items": [{"id": i, "tags": ["a", "b"]} for i in range(50)]}},
    ),
    # JSON.parse makes these own data properties; the walk must not treat them specially.
    "odd keys": Scope(
        inputs={"__proto__": {"polluted": [1]}, "0": [{}], "": {"constructor": {"x": []}}},
        run_outputs={"length": [[], [[]]], "toJSON": {"valueOf": [0]}},
    ),
    "empty": Scope(inputs={"o": {}, "a": [], "nested": [[], {}, [[]], [{}]]}),
    "deepest admitted": Scope(inputs={"chain": chain(MAX_SCOPE_DEPTH - 1)}),
    "many siblings": Scope(run_outputs={f"n{i}": [{"v": i}] for i in range(300)}),
    "branches": Scope(branches=[{"b": [[{"c": 1}]]}, [], [{}], "text", None]),
}


@pytest.mark.parametrize("shape", SHAPES)
def test_every_scope_container_is_frozen(shape: str) -> None:
    scope = SHAPES[shape]
    assert evaluate(MUTABLE, "merge", scope) == []
    # The walk above must have seen every container the host sent (the bindings' records too).
    # `run` is the one record the host does not send as a container of its own.
    assert evaluate(f"{CONTAINERS}.length", "merge", scope) == containers(scope) + 1


@pytest.mark.parametrize("shape", SHAPES)
def test_no_write_of_any_kind_reaches_a_scope_container(shape: str) -> None:
    assert evaluate(WRITABLE, "merge", SHAPES[shape]) == []


def test_odd_keys_stay_own_data_and_no_prototype_is_reached() -> None:
    scope = SHAPES["odd keys"]
    source = """[
      Object.getPrototypeOf(inputs.__proto__) === Object.prototype,
      Object.hasOwn(inputs, "__proto__"), ({}).polluted, Object.prototype.polluted,
      Object.isFrozen(Object.getPrototypeOf(inputs.__proto__)),
      Object.getPrototypeOf(inputs),
    ]"""
    assert evaluate(source, "transform", scope) == [True, True, None, None, False, None]


def test_a_write_to_the_scope_fails_as_runtime_not_silently() -> None:
    with pytest.raises(SandboxError) as caught:
        evaluate("run.outputs.node.items[0].tags.push('c')", "transform", SHAPES["mixed"])
    assert caught.value.reason == "runtime"


def containers(scope: Scope) -> int:
    pending: list[object] = [scope.inputs, dict(scope.ctx.values), scope.run_outputs,
                             list(scope.branches)]
    count = 0
    while pending:
        item = pending.pop()
        if isinstance(item, dict):
            pending.extend(item.values())
        elif isinstance(item, list):
            pending.extend(item)
        else:
            continue
        count += 1
    return count
