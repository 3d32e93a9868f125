// `#otel-api` where the `node` condition holds (Node, Bun, Deno, and bundles made for them): the
// optional peer `@opentelemetry/api` by a literal specifier, so esbuild and webpack bundle it where
// the app has it (one copy with the app's own) and only warn where it is not installed.

// tsup defines it: `true` in the CommonJS build, `false` in the ESM build (undefined in tests of the sources)
declare const __CHECKOUT_SDK_CJS__: boolean | undefined;
// the CommonJS build's own `require` (tsup.config.ts names it so; module-scoped, so no Node types are needed)
declare const __CHECKOUT_SDK_REQUIRE__: (id: string) => unknown;

/**
 * `@opentelemetry/api` as its loader hands it back, or `null` when it is not installed (or not
 * loadable here). The CommonJS build uses its own `require` (synchronous; Jest's registry), the ESM
 * build `import()`.
 */
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
