// The private driver of one evaluation, run in a fresh QuickJS context (see sandbox/vm.py).
// One file past 500 lines on purpose: it is evaluated as one script into each context, and its
// captures must all be taken before any authored code runs, so it cannot be split into modules.
// Evaluating this text captures the intrinsics, locks the context down (nothing in it depends on
// the request) and yields the evaluate function; the host calls that once with the request JSON
// string. It returns either a transport string (a failure or a denial) or the private serializer
// closure, which the host calls once, under the remaining time budget, for the success transport.
//
// Everything the driver needs after authored code has run is captured first, and the code that
// runs afterwards only calls those captures, uses `{ __proto__: null }` records, indexed loops and
// string concatenation: authored code may have redefined any prototype method, accessor or index
// setter by then. No driver record is ever handed to JSON.stringify (quickjs-ng's stringify pushes
// each object it visits onto an ordinary array, where an `Array.prototype[0]` setter would receive
// it): transport text is concatenated from primitive strings, whose stringify consults nothing.
//
// Every call that can run authored code is guarded, and so is the driver as a whole, so the only
// exception that can leave it is the engine's uncatchable interrupt. The host relies on that and
// never reads an exception's text. Failure classification reads facts authored code cannot forge:
// which errors the creation hook saw and what they were when created, which errors authored code
// constructed, whether a probe allocation still fits (see `evidence`).
(function () {
  "use strict";

  const DENIED = '{"v":1,"arm":"denied"}';
  // The driver's own code failed although every authored call was guarded: a resource failure.
  const DRIVER_FAILED = '{"v":1,"arm":"failure","phase":"driver","evidence":"memory","detail":""}';
  const SERIALIZER_FAILED =
    '{"v":1,"arm":"failure","phase":"serialize","evidence":"memory","detail":""}';
  let latched = false;
  return prepare();

  // Runs when the driver is loaded, before any request: captures, then lockdown.
  function prepare() {
    const global = globalThis;
    const freeze = Object.freeze;
    const create = Object.create;
    const defineProperty = Object.defineProperty;
    const getOwnPropertyDescriptor = Object.getOwnPropertyDescriptor;
    const getPrototypeOf = Object.getPrototypeOf;
    const setPrototypeOf = Object.setPrototypeOf;
    const objectKeys = Object.keys;
    const objectValues = Object.values;
    const objectIs = Object.is;
    const hasOwnProperty = Object.prototype.hasOwnProperty;
    const isArray = Array.isArray;
    const stringify = JSON.stringify;
    const parse = JSON.parse;
    const apply = Reflect.apply;
    const construct = Reflect.construct;
    const ownKeys = Reflect.ownKeys;
    const isError = Error.isError;
    const toText = String;
    const sliceText = String.prototype.slice;
    const repeatText = String.prototype.repeat;
    const join = Array.prototype.join;
    const bind = Function.prototype.bind;
    const weakSetAdd = WeakSet.prototype.add;
    const weakSetHas = WeakSet.prototype.has;
    const weakMapGet = WeakMap.prototype.get;
    const weakMapSet = WeakMap.prototype.set;
    const weakMapHas = WeakMap.prototype.has;
    const indirectEval = global.eval;
    const RealError = Error;
    const DeniedError = TypeError;
    const internalErrorPrototype = InternalError.prototype;
    const rangeErrorPrototype = RangeError.prototype;
    const syntaxErrorPrototype = SyntaxError.prototype;

    const TRANSPORT_VERSION = 1;
    const DETAIL_LIMIT = 2000;
    const DEPTH_LIMIT = 128;
    const STACK_TRACE_LIMIT = 10;
    // A thrown `null` is the engine's when it could not even allocate its out-of-memory error;
    // then a probe this size cannot be allocated either where the throw is first handled.
    const PROBE_LENGTH = 4096;
    // See reserveCollectorHeadroom.
    const COLLECTOR_HEADROOM = 262144;
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
    // Every constructor of an error class, Error first: authored code gets stand-ins (below).
    // The last two are not globals here but reachable through the errors `using` and the
    // engine's host hooks can throw.
    const ERROR_CLASSES = [
      "Error", "EvalError", "RangeError", "ReferenceError", "SyntaxError", "TypeError", "URIError",
      "InternalError", "AggregateError", "SuppressedError", "DOMException",
    ];

    // Errors authored code constructed, and what every error was when the engine created it.
    const constructed = new WeakSet();
    const created = new WeakMap();
    // Set when the creation hook saw a thrown `null` where not even the probe fitted the heap.
    let heapExhaustedAtNull = false;
    // The compiled authored function, and the driver functions that can run inside it (the
    // constructor stand-ins, the prototype override setters, the denied accessor): an error's
    // position is its innermost frame of authored code.
    let authored;
    const driverCode = new WeakSet();

    function has(object, key) {
      return apply(hasOwnProperty, object, [key]);
    }

    function clip(text) {
      return text.length > DETAIL_LIMIT ? apply(sliceText, text, [0, DETAIL_LIMIT]) : text;
    }

    // One flat string from an array literal of strings. An array literal defines its elements
    // (no inherited index setter runs) and join reads only them; `+` on long strings would give
    // quickjs-ng's rope strings, which the Python binding cannot return.
    function concat(parts) {
      return apply(join, parts, [""]);
    }

    function field(name, text) {
      return concat([",", stringify(name), ":", stringify(text)]);
    }

    // `extra`: the optional author-detail fields, already encoded.
    function failure(phase, evidence, detail, extra) {
      return concat([
        '{"v":', toText(TRANSPORT_VERSION), ',"arm":"failure"', field("phase", phase),
        field("evidence", evidence), field("detail", detail),
        extra === undefined ? "" : concat(extra), "}",
      ]);
    }

    // The engine calls this when it creates any error (its own or a constructed one), before
    // authored code can touch it, and cannot call it when the stack is exhausted. It records
    // what the error was, and formats the stack the way the engine's default does.
    function onErrorCreated(error, callSites) {
      if (error === null) {
        try {
          apply(repeatText, " ", [PROBE_LENGTH]);
        } catch (exhausted) {
          heapExhaustedAtNull = true;
        }
        return undefined;
      }
      if (isError(error) && !apply(weakMapHas, created, [error])) {
        const descriptor = getOwnPropertyDescriptor(error, "message");
        const message = descriptor !== undefined && has(descriptor, "value") ? descriptor.value : "";
        const site = authoredSite(callSites);
        apply(weakMapSet, created, [error, {
          __proto__: null, prototype: getPrototypeOf(error), message,
          line: site === undefined ? undefined : site.getLineNumber(),
          column: site === undefined ? undefined : site.getColumnNumber(),
        }]);
      }
      // Only authored frames: the driver's own (its stand-ins with the native `construct` they
      // call, and everything outside the authored function) are not the expression's stack.
      let stack = "";
      for (let index = 0; index < callSites.length; index += 1) {
        const site = callSites[index];
        const running = site.getFunction();
        if (apply(weakSetHas, driverCode, [running]) || running === construct) continue;
        const name = site.getFunctionName();
        stack = stack + "    at " + (name === null || name === "" ? "<anonymous>" : name) +
          (site.isNative() ? " (native)"
            : " (" + site.getFileName() + ":" + site.getLineNumber() + ":" +
              site.getColumnNumber() + ")") + "\n";
        if (authored !== undefined && running === authored) break;
      }
      return stack;
    }

    // The innermost frame of authored code, if the authored function is on the stack.
    function authoredSite(callSites) {
      if (authored === undefined) return undefined;
      let innermost;
      for (let index = 0; index < callSites.length; index += 1) {
        const site = callSites[index];
        const running = site.getFunction();
        if (running === authored) return innermost === undefined ? site : innermost;
        if (innermost === undefined && typeof running === "function" && !site.isNative() &&
            !apply(weakSetHas, driverCode, [running])) {
          innermost = site;
        }
      }
      return undefined;
    }

    // Authored code sees stand-ins for the error constructors: the same prototypes, statics and
    // behaviour, but every error they construct is recorded, so a hand-built error that copies
    // an engine failure's class and message is never taken for one.
    function standIn(Real, parent) {
      function Constructor(...args) {
        const error = construct(Real, args, new.target === undefined ? Constructor : new.target);
        apply(weakSetAdd, constructed, [error]);
        return error;
      }
      apply(weakSetAdd, driverCode, [Constructor]);
      defineProperty(Constructor, "prototype", { value: Real.prototype, writable: false });
      const visible = apply(bind, Constructor, [undefined]);
      defineProperty(visible, "prototype", { value: Real.prototype });
      defineProperty(visible, "name", { value: Real.name, configurable: true });
      defineProperty(visible, "length", { value: Real.length, configurable: true });
      if (parent !== undefined) setPrototypeOf(visible, parent);
      for (const key of ownKeys(Real)) {
        if (key === "prototype" || key === "name" || key === "length") continue;
        const descriptor = getOwnPropertyDescriptor(Real, key);
        defineProperty(visible, key, has(descriptor, "value") ? descriptor : {
          // The engine's own accessors (stackTraceLimit, prepareStackTrace) stay private.
          value: key === "stackTraceLimit" ? STACK_TRACE_LIMIT : undefined,
          writable: false, enumerable: false, configurable: false,
        });
      }
      defineProperty(Real.prototype, "constructor", {
        value: visible, writable: true, enumerable: false, configurable: true,
      });
      return visible;
    }

    function lockDown() {
      // Set through the real accessors, which authored code never reaches: the hook runs for
      // every error, and no authored valueOf can run while the engine reads the limit.
      RealError.stackTraceLimit = STACK_TRACE_LIMIT;
      RealError.prepareStackTrace = onErrorCreated;
      apply(weakSetAdd, driverCode, [deny]);
      let parent;
      const standIns = [];
      for (const name of ERROR_CLASSES) {
        const Real = global[name];
        if (typeof Real !== "function") continue;
        const visible = standIn(Real, parent);
        parent = parent === undefined ? visible : parent;
        if (has(global, name)) {
          defineProperty(global, name, {
            value: visible, writable: true, enumerable: false, configurable: true,
          });
        }
        standIns[standIns.length] = visible;
      }
      const allowed = create(null);
      for (const name of ALLOWED_GLOBALS) allowed[name] = true;
      for (const key of ownKeys(global)) {
        if (typeof key === "string" && !allowed[key]) delete global[key];
      }
      delete Math.random;
      freeze(Math);
      for (const visible of standIns) {
        freeze(visible);
        freezeKeepingOverrides(visible.prototype);
      }
    }

    // Frozen error prototypes keep the host's conversion of an escaping engine error (toString,
    // name, message, stack) free of authored code. Plain freezing would also make `err.name = "X"`
    // throw on every instance (the override mistake), so each data property becomes a fixed
    // getter whose setter defines the property on the instance, as an ordinary assignment would.
    function freezeKeepingOverrides(prototype) {
      for (const key of ownKeys(prototype)) {
        const descriptor = getOwnPropertyDescriptor(prototype, key);
        // Non-configurable data (DOMException's code constants) is read-only already.
        if (!has(descriptor, "value") || !descriptor.configurable) continue;
        const value = descriptor.value;
        const accessors = {
          get() {
            return value;
          },
          set(replacement) {
            if (this === prototype) throw new TypeError("'" + toText(key) + "' is read-only");
            defineProperty(this, key, {
              value: replacement, writable: true, enumerable: true, configurable: true,
            });
          },
        };
        apply(weakSetAdd, driverCode, [accessors.get]);
        apply(weakSetAdd, driverCode, [accessors.set]);
        defineProperty(prototype, key, {
          get: accessors.get, set: accessors.set,
          enumerable: descriptor.enumerable, configurable: false,
        });
      }
      freeze(prototype);
    }

    // The engine collects cycles when an object is created after its heap grew by half since the
    // last collection; in a fresh context that first point falls inside the evaluation of any
    // sizeable scope. Collecting now, while a temporary string inflates the heap, moves the next
    // collection ~0.5 MB of growth away (an 18 KB scope grows it by ~0.2 MB). Nothing authored can
    // observe when the collector runs (no WeakRef or FinalizationRegistry); the cap is unchanged.
    function reserveCollectorHeadroom() {
      // Repeating a one-character string fills it character by character; repeating 1 KiB copies.
      const padding = apply(repeatText, apply(repeatText, " ", [1024]), [COLLECTOR_HEADROOM / 1024]);
      const trigger = { __proto__: null };
      return padding.length + (trigger === null ? 1 : 0);
    }

    function deny() {
      // Sticky: a caught read, a getter returned as a value or a toJSON read cannot clear it.
      latched = true;
      throw new DeniedError(DENIED_MESSAGE);
    }

    function deepFreeze(root) {
      // Level by level (a recursive freeze overflows the 256 KB stack near 150 levels). This walk
      // is most of the cost of a large scope, and the interpreter's per-value steps are most of
      // the walk: lengths are read once, and only containers are kept for the next level.
      if (typeof root !== "object" || root === null) return root;
      let level = [root];
      for (let depth = 0; level.length > 0; depth += 1) {
        if (depth > DEPTH_LIMIT) throw new RangeError("scope nesting exceeds " + DEPTH_LIMIT);
        const next = [];
        let count = 0;
        const size = level.length;
        for (let index = 0; index < size; index++) {
          const value = level[index];
          const children = isArray(value) ? value : objectValues(value);
          const length = children.length;
          for (let child = 0; child < length; child++) {
            const item = children[child];
            if (typeof item === "object" && item !== null) next[count++] = item;
          }
          // After its values are read: freezing turns an array into a slower, non-writable one.
          freeze(value);
        }
        level = next;
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

    function scopeBindings(request) {
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

    // The evidence the host classifies on, from facts authored code cannot forge. Never the
    // thrown value's current class or message: authored code can build or reshape any error.
    //  - stack: an error the engine made but could not run the creation hook for (the hook needs
    //    stack), or one it created as a stack overflow;
    //  - memory: an error the engine created as out of memory, or a thrown `null` after the hook
    //    found the heap exhausted at a `null` throw (the engine's last resort when it cannot
    //    allocate its own error);
    //  - everything authored code constructed or threw itself: runtime.
    function evidence(thrown) {
      if (thrown === null) return heapExhaustedAtNull ? "memory" : "runtime";
      // No JavaScript value has this type: the engine's residue of an exception it could not
      // even record for lack of memory.
      if (typeof thrown === "unknown") return "memory";
      if (!isError(thrown) || apply(weakSetHas, constructed, [thrown])) return "runtime";
      const origin = apply(weakMapGet, created, [thrown]);
      if (origin === undefined) {
        return getPrototypeOf(thrown) === rangeErrorPrototype ? "stack" : "memory";
      }
      if (origin.prototype === internalErrorPrototype) {
        if (origin.message === "out of memory" || origin.message === "string too long") {
          return "memory";
        }
        if (origin.message === "stack overflow") return "stack";
      }
      if (origin.prototype === rangeErrorPrototype &&
          origin.message === "Maximum call stack size exceeded") {
        return "stack";
      }
      if (origin.prototype === syntaxErrorPrototype) return "syntax";
      return "runtime";
    }

    // Private diagnostic text (SandboxError.detail) and, for an Error, its class and message as
    // separate fields (the author detail a dry run may show): authored text, never shown
    // elsewhere, clipped, and read once (its getters run once).
    function describe(thrown) {
      const described = { __proto__: null, text: "(a thrown value that cannot be described)" };
      try {
        if (typeof thrown === "bigint" || typeof thrown === "symbol") {
          described.text = clip(toText(thrown));
        } else if (isError(thrown)) {
          described.name = clip(toText(thrown.name));
          described.message = clip(toText(thrown.message));
          described.text = clip(described.name + ": " + described.message);
        } else {
          const json = stringify(thrown);
          described.text = clip(json === undefined ? toText(thrown) : json);
        }
      } catch (ignored) {
        // the fixed text above
      }
      return described;
    }

    function failed(phase, thrown) {
      let kind = evidence(thrown);
      // A syntax error is the compiler's verdict only while compiling.
      if (kind === "syntax" && phase !== "compile") kind = "runtime";
      const described = describe(thrown);
      if (latched) return DENIED;
      const origin = isError(thrown) ? apply(weakMapGet, created, [thrown]) : undefined;
      const located = origin !== undefined && typeof origin.line === "number" &&
        typeof origin.column === "number";
      return failure(phase, kind, typeof described.text === "string" ? described.text : "", [
        typeof described.name === "string" ? field("class", described.name) : "",
        typeof described.message === "string" ? field("message", described.message) : "",
        located ? concat([',"line":', toText(origin.line), ',"column":', toText(origin.column)])
          : "",
      ]);
    }

    lockDown();
    reserveCollectorHeadroom();
    // The host calls this once, with the request JSON string.
    return function evaluate(requestJson) {
      try {
        return drive(requestJson);
      } catch (escaped) {
        // Returning a constant allocates nothing, so this cannot fail in turn.
        return latched ? DENIED : DRIVER_FAILED;
      }
    };

    function drive(requestJson) {
      // Phase 1: scope rebuild, compile, run. Nothing authored runs before `apply(authored)`.
      const request = parse(requestJson);
      let bindings;
      try {
        bindings = scopeBindings(request);
      } catch (thrown) {
        return failed("scope", thrown);
      }
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
          const name = ERROR_FIELDS[index];
          values[index] = has(present, name) ? undefined : result[name];
        }
        let extended = apply(sliceText, payload, [0, payload.length - 1]);
        let separator = payload === "{}" ? "" : ",";
        for (let index = 0; index < ERROR_FIELDS.length; index += 1) {
          const json = values[index] === undefined ? undefined : stringify(values[index]);
          if (typeof json !== "string") continue;
          extended = extended + separator + stringify(ERROR_FIELDS[index]) + ":" + json;
          separator = ",";
        }
        return extended + "}";
      }

      // The authored result's JSON text (authored toJSON and getters run here), or undefined.
      function payloadOf() {
        if (resultType === "number") {
          return numberTag(result) === undefined ? stringify(result) : "null";
        }
        if (resultType === "string" || resultType === "boolean") return stringify(result);
        if (resultType !== "object") return undefined;
        const payload = stringify(result);
        if (typeof payload !== "string") return undefined;
        return result !== null && isError(result) ? withErrorFields(payload) : payload;
      }

      function successArm(payload, tag) {
        return concat([
          '{"v":', toText(TRANSPORT_VERSION), ',"arm":"success"', field("type", resultType),
          typeof payload === "string" ? field("payload", payload) : "",
          tag === undefined ? "" : field("tag", tag), "}",
        ]);
      }

      function serializeOnce() {
        if (serialized) return failure("serialize", "runtime", "serializer called twice");
        serialized = true;
        let payload;
        try {
          payload = payloadOf();
        } catch (ignored) {
          // a cycle, a throwing getter or toJSON, a BigInt inside: no payload, the host decides
          payload = undefined;
        }
        if (latched) return DENIED;
        return successArm(payload, resultType === "number" ? numberTag(result) : undefined);
      }

      // A denial observed while the expression ran is the verdict, whatever would follow (the
      // serializer, or the host finding the deadline passed): the latch is sticky.
      if (latched) return DENIED;
      // Phase 2: serialize the captured result at most once, then check the latch last. Called
      // with `typeOnly` (the host, when the expression returned past the deadline), it runs no
      // authored code: the captured VM type only, no payload, for the host's type verdict.
      return function serialize(typeOnly) {
        try {
          if (typeOnly !== true) return serializeOnce();
          serialized = true;
          return successArm(undefined, undefined);
        } catch (escaped) {
          return latched ? DENIED : SERIALIZER_FAILED;
        }
      };
    }
  }
})()
