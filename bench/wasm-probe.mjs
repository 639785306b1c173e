// Watches WebAssembly from outside a module, so the benchmark can size the
// Wasm a package compiles and read its linear memory without the package
// exposing either. Install BEFORE importing the module under test; only the
// memory probe child (which also sizes the Wasm) and the soak do this, never
// the timed per-recall runs.
export function watchWebAssembly() {
  const seen = { moduleBytes: [], instances: [] };
  const { Module, Instance } = WebAssembly;
  const originalInstantiate = WebAssembly.instantiate;

  const copyBytes = (source) =>
    ArrayBuffer.isView(source)
      ? Buffer.from(source.buffer.slice(source.byteOffset, source.byteOffset + source.byteLength))
      : Buffer.from(source.slice(0));

  WebAssembly.Module = class WatchedModule extends Module {
    constructor(bytes, ...rest) {
      super(bytes, ...rest);
      seen.moduleBytes.push(copyBytes(bytes));
    }
  };
  WebAssembly.Instance = class WatchedInstance extends Instance {
    constructor(module, imports) {
      super(module, imports);
      seen.instances.push({ instance: this, imports });
    }
  };
  WebAssembly.instantiate = async function watchedInstantiate(source, imports) {
    const result = await originalInstantiate.call(WebAssembly, source, imports);
    if (result instanceof Instance) {
      seen.instances.push({ instance: result, imports });
    } else {
      seen.moduleBytes.push(copyBytes(source));
      seen.instances.push({ instance: result.instance, imports });
    }
    return result;
  };

  return {
    moduleBytes: () => seen.moduleBytes,
    /** Total bytes of every linear memory the watched instances export or import. */
    linearMemoryBytes() {
      const memories = new Set();
      for (const { instance, imports } of seen.instances) {
        for (const value of Object.values(instance.exports)) if (value instanceof WebAssembly.Memory) memories.add(value);
        for (const namespace of Object.values(imports ?? {})) {
          for (const value of Object.values(namespace ?? {})) if (value instanceof WebAssembly.Memory) memories.add(value);
        }
      }
      if (memories.size === 0) return null;
      let bytes = 0;
      for (const memory of memories) bytes += memory.buffer.byteLength;
      return bytes;
    },
  };
}
