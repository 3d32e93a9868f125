// `#otel-api` under the `node` condition: the peer by a literal specifier, so a bundler bundles it where
// the app has it (one copy with the app's own) and only warns where it is not installed.

// tsup defines it: `true` in the CommonJS build, `false` in the ESM build (undefined in tests of the sources)
declare const __CHECKOUT_SDK_CJS__: boolean | undefined;
// the CommonJS build's own `require` (tsup.config.ts names it so; module-scoped, so no Node types are needed)
declare const __CHECKOUT_SDK_REQUIRE__: (id: string) => unknown;

/** `@opentelemetry/api` as its loader hands it back, or `null`: `require` in the CommonJS build (Jest's registry), else `import()`. */
export function loadOtelApi(): unknown {
  if (typeof __CHECKOUT_SDK_CJS__ === 'boolean' && __CHECKOUT_SDK_CJS__) {
    try {
      return __CHECKOUT_SDK_REQUIRE__('@opentelemetry/api');
    } catch {
      return null;
    }
  }
  // a separate `if` (not an `else`), so esbuild drops it, and the import() in it, from the CommonJS build
  if (!(typeof __CHECKOUT_SDK_CJS__ === 'boolean' && __CHECKOUT_SDK_CJS__)) return importOtelApi();
  return null;
}

/** The ESM build's lookup, inside a `try`: bundlers (webpack) then only warn where the peer is not installed. */
async function importOtelApi(): Promise<unknown> {
  try {
    return await import('@opentelemetry/api');
  } catch {
    return null;
  }
}
