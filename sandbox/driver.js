// The private driver of one evaluation, run in a fresh QuickJS context (see sandbox/vm.py).
// Evaluating this text yields the driver function; the host calls it once with the request JSON
// string. It returns either a transport string (a failure or a denial) or the private serializer
// closure, which the host calls once, under the remaining time budget, for the success transport.
//
// Everything the driver needs after authored code has run is captured first, and the code that
// runs afterwards only calls those captures, uses `{ __proto__: null }` records, indexed loops and
// string concatenation: authored code may have redefined any prototype method by then.
(function (requestJson) {
  "use strict";

  const global = globalThis;
  const freeze = Object.freeze;
  const create = Object.create;
  const defineProperty = Object.defineProperty;
  const getOwnPropertyDescriptor = Object.getOwnPropertyDescriptor;
  const getPrototypeOf = Object.getPrototypeOf;
  const objectKeys = Object.keys;
  const objectIs = Object.is;
  const hasOwnProperty = Object.prototype.hasOwnProperty;
  const isArray = Array.isArray;
  const stringify = JSON.stringify;
  const parse = JSON.parse;
  const apply = Reflect.apply;
  const ownKeys = Reflect.ownKeys;
  const isError = Error.isError;
  const toText = String;
  const sliceText = String.prototype.slice;
  const indirectEval = global.eval;
  const DeniedError = TypeError;
  const internalErrorPrototype = InternalError.prototype;
  const rangeErrorPrototype = RangeError.prototype;
  const syntaxErrorPrototype = SyntaxError.prototype;

  const TRANSPORT_VERSION = 1;
  const DETAIL_LIMIT = 2000;
  const DEPTH_LIMIT = 128;
  const DENIED_MESSAGE = "secret-derived values are unavailable to expressions";
  // The diagnostic fields the engine's bridge adds to a top-level Error result, in its order.
  const ERROR_FIELDS = ["name", "message", "stack", "fileName", "lineNumber"];

  // The spec's allow-list (plus the error constructors and the pure URI helpers every QuickJS
  // build ships in its base objects); every other global is deleted: deny by default.
  const ALLOWED_GLOBALS = [
    "Object", "Function", "Array", "String", "Number", "Boolean", "Math", "JSON", "Map", "Set",
    "WeakMap", "WeakSet", "RegExp", "Reflect", "Symbol", "BigInt", "parseInt", "parseFloat",
    "isNaN", "isFinite", "eval", "globalThis", "Infinity", "NaN", "undefined",
    "Error", "EvalError", "RangeError", "ReferenceError", "SyntaxError", "TypeError", "URIError",
    "InternalError", "AggregateError",
    "decodeURI", "decodeURIComponent", "encodeURI", "encodeURIComponent", "escape", "unescape",
  ];
  const ERROR_CONSTRUCTORS = [
    Error, EvalError, RangeError, ReferenceError, SyntaxError, TypeError, URIError,
    InternalError, AggregateError,
  ];

  const request = parse(requestJson);
  let latched = false;

  function has(object, key) {
    return apply(hasOwnProperty, object, [key]);
  }

  function clip(text) {
    return text.length > DETAIL_LIMIT ? apply(sliceText, text, [0, DETAIL_LIMIT]) : text;
  }

  function transport(record) {
    record.v = TRANSPORT_VERSION;
    return stringify(record);
  }

  function denied() {
    return transport({ __proto__: null, arm: "denied" });
  }

  function failure(phase, evidence, detail) {
    return transport({ __proto__: null, arm: "failure", phase, evidence, detail });
  }

  function lockDown() {
    const allowed = create(null);
    for (const name of ALLOWED_GLOBALS) allowed[name] = true;
    for (const key of ownKeys(global)) {
      if (typeof key === "string" && !allowed[key]) delete global[key];
    }
    delete Math.random;
    freeze(Math);
    // Error.prepareStackTrace would hand authored code CallSite objects whose getFunction()
    // returns the live driver closures on the stack; pin it to undefined before freezing.
    defineProperty(Error, "prepareStackTrace", {
      value: undefined, writable: false, enumerable: false, configurable: false,
    });
    for (const constructor of ERROR_CONSTRUCTORS) {
      freeze(constructor);
      freezeKeepingOverrides(constructor.prototype);
    }
  }

  // Frozen error prototypes keep the host's conversion of an escaping engine error (toString,
  // name, message, stack) free of authored code. Plain freezing would also make `err.name = "X"`
  // throw on every instance (the override mistake), so each data property becomes a fixed
  // getter whose setter defines the property on the instance, as an ordinary assignment would.
  function freezeKeepingOverrides(prototype) {
    for (const key of ownKeys(prototype)) {
      const descriptor = getOwnPropertyDescriptor(prototype, key);
      if (!has(descriptor, "value")) continue;
      const value = descriptor.value;
      defineProperty(prototype, key, {
        get() {
          return value;
        },
        set(replacement) {
          if (this === prototype) throw new TypeError("'" + toText(key) + "' is read-only");
          defineProperty(this, key, {
            value: replacement, writable: true, enumerable: true, configurable: true,
          });
        },
        enumerable: descriptor.enumerable,
        configurable: false,
      });
    }
    freeze(prototype);
  }

  function deny() {
    // Sticky: a caught read, a getter returned as a value or a toJSON read cannot clear it.
    latched = true;
    throw new DeniedError(DENIED_MESSAGE);
  }

  function deepFreeze(root) {
    // Iterative (a recursive freeze overflows the 256 KB stack near 150 levels), with indexed
    // loops and only containers pushed: this walk is most of the cost of a large scope.
    const pending = [root];
    const depths = [0];
    let top = 1;
    while (top > 0) {
      top -= 1;
      const value = pending[top];
      const depth = depths[top];
      if (typeof value !== "object" || value === null) continue;
      if (depth > DEPTH_LIMIT) throw new RangeError("scope nesting exceeds " + DEPTH_LIMIT);
      freeze(value);
      const keys = isArray(value) ? undefined : objectKeys(value);
      const count = keys === undefined ? value.length : keys.length;
      for (let index = 0; index < count; index += 1) {
        const child = keys === undefined ? value[index] : value[keys[index]];
        if (typeof child === "object" && child !== null) {
          pending[top] = child;
          depths[top] = depth + 1;
          top += 1;
        }
      }
    }
    return root;
  }

  function record(values, deniedKeys) {
    const deniedSet = create(null);
    for (const key of deniedKeys) deniedSet[key] = true;
    const built = create(null);
    for (const key of objectKeys(values)) {
      if (deniedSet[key]) {
        defineProperty(built, key, { get: deny, enumerable: true, configurable: false });
      } else {
        defineProperty(built, key, {
          value: deepFreeze(values[key]), writable: false, enumerable: true, configurable: false,
        });
      }
    }
    return freeze(built);
  }

  function scopeBindings() {
    const run = create(null);
    run.outputs = record(request.outputs, []);
    const bindings = [
      record(request.inputs, request.deniedInputs),
      record(request.ctx, request.deniedCtx),
      freeze(run),
    ];
    if (request.kind === "merge") {
      // Each branch is one scope value, admitted to the same depth as an input.
      for (const branch of request.branches) deepFreeze(branch);
      bindings.push(freeze(request.branches));
    }
    return bindings;
  }

  // The evidence the host classifies on: facts of the engine (which intrinsic prototype, which
  // own message it set), read without running authored code. Authored names never decide it.
  function evidence(thrown) {
    if (thrown === null) return "memory"; // the engine's throw when it cannot allocate an error
    if (!isError(thrown)) return "runtime";
    const prototype = getPrototypeOf(thrown);
    const descriptor = getOwnPropertyDescriptor(thrown, "message");
    const message = descriptor !== undefined && has(descriptor, "value") ? descriptor.value : "";
    if (prototype === internalErrorPrototype) {
      if (message === "out of memory" || message === "string too long") return "memory";
      if (message === "stack overflow") return "stack";
    }
    if (prototype === rangeErrorPrototype && message === "Maximum call stack size exceeded") {
      return "stack";
    }
    return "runtime";
  }

  // Private diagnostic text (SandboxError.detail): may contain authored text, never shown.
  function describe(thrown) {
    try {
      if (typeof thrown === "bigint" || typeof thrown === "symbol") return clip(toText(thrown));
      if (isError(thrown)) return clip(toText(thrown.name) + ": " + toText(thrown.message));
      const json = stringify(thrown);
      return clip(json === undefined ? toText(thrown) : json);
    } catch (ignored) {
      return "(a thrown value that cannot be described)";
    }
  }

  function failed(phase, thrown) {
    let kind = "runtime";
    try {
      kind = evidence(thrown);
    } catch (ignored) {
      // classification reads no authored code; a failure here is a resource failure
      kind = "memory";
    }
    if (phase === "compile" && kind === "runtime") {
      kind = isError(thrown) && getPrototypeOf(thrown) === syntaxErrorPrototype ? "syntax" : kind;
    }
    const detail = describe(thrown);
    if (latched) return denied();
    return failure(phase, kind, detail);
  }

  // Phase 1: lockdown, scope rebuild, compile, run. Nothing authored runs before `apply(authored)`.
  let bindings;
  try {
    lockDown();
    bindings = scopeBindings();
  } catch (thrown) {
    return failed("scope", thrown);
  }
  let authored;
  try {
    authored = indirectEval(request.source);
  } catch (thrown) {
    return failed("compile", thrown);
  }
  let result;
  try {
    result = apply(authored, undefined, bindings);
  } catch (thrown) {
    return failed("run", thrown);
  }
  const resultType = typeof result;
  let serialized = false;

  function numberTag(value) {
    if (value !== value) return "NaN";
    if (value === Infinity) return "Infinity";
    if (value === -Infinity) return "-Infinity";
    if (objectIs(value, -0)) return "-0";
    return undefined;
  }

  // The engine bridge's supplemental fields on a top-level Error whose JSON is an object: all
  // getters run first, then their values are serialized; the original traversal comes before.
  function withErrorFields(payload) {
    if (payload[0] !== "{") return payload;
    const present = parse(payload);
    // Not an array: an authored setter on Array.prototype[0] would intercept the writes.
    const values = { __proto__: null };
    for (let index = 0; index < ERROR_FIELDS.length; index += 1) {
      const field = ERROR_FIELDS[index];
      values[index] = has(present, field) ? undefined : result[field];
    }
    let extended = apply(sliceText, payload, [0, payload.length - 1]);
    let separator = payload === "{}" ? "" : ",";
    for (let index = 0; index < ERROR_FIELDS.length; index += 1) {
      const json = values[index] === undefined ? undefined : stringify(values[index]);
      if (json === undefined) continue;
      extended = extended + separator + stringify(ERROR_FIELDS[index]) + ":" + json;
      separator = ",";
    }
    return extended + "}";
  }

  // Phase 2: serialize the captured result at most once, then check the latch last.
  return function serialize() {
    if (serialized) return failure("serialize", "runtime", "serializer called twice");
    serialized = true;
    const success = { __proto__: null, arm: "success", type: resultType };
    try {
      if (resultType === "number") {
        const tag = numberTag(result);
        if (tag !== undefined) success.tag = tag;
        success.payload = tag === undefined ? stringify(result) : "null";
      } else if (resultType === "string" || resultType === "boolean") {
        success.payload = stringify(result);
      } else if (resultType === "object") {
        const payload = stringify(result);
        if (payload !== undefined) {
          success.payload = result !== null && isError(result) ? withErrorFields(payload) : payload;
        }
      }
    } catch (ignored) {
      // a cycle, a throwing getter or toJSON, a BigInt inside: no payload, the host decides
      delete success.payload;
    }
    if (latched) return denied();
    return transport(success);
  };
})
