#!/usr/bin/env -S npx tsx
// No forgotten export (API Extractor's rule): every named type that an entry's public declarations
// use, directly or through other such types, is exported by that entry, so a partner can write its
// name. Run after the build on the declaration files package.json's `exports` points at:
//   npx tsx scripts/check-exports.ts        (npm run check:exports)
// It prints each forgotten export with the entry and the declaration that uses it, and fails.
// test/package/forgotten-exports.test.ts runs the same walk on src/.
import { readFileSync } from 'node:fs';
import { resolve, sep } from 'node:path';
import { pathToFileURL } from 'node:url';
import ts from 'typescript';

/** One entry point: its import specifier and the file that declares its exports. */
export interface EntryFile {
  entry: string;
  file: string;
}

/** A named declaration that an entry's public declarations use and the entry does not export. */
export interface ForgottenExport {
  entry: string;
  name: string;
  /** The exported (or itself forgotten) declaration whose signature names it. */
  usedBy: string;
}

const NAMED = new Set([
  ts.SyntaxKind.InterfaceDeclaration,
  ts.SyntaxKind.TypeAliasDeclaration,
  ts.SyntaxKind.ClassDeclaration,
  ts.SyntaxKind.EnumDeclaration,
  ts.SyntaxKind.FunctionDeclaration,
  ts.SyntaxKind.VariableDeclaration,
  ts.SyntaxKind.ModuleDeclaration,
]);

/** What a signature shows: a body or an initializer is implementation, a private member is not API. */
function isHidden(node: ts.Node): boolean {
  if (ts.isBlock(node)) return true;
  if (ts.isPropertyDeclaration(node) || ts.isMethodDeclaration(node) || ts.isGetAccessor(node) || ts.isSetAccessor(node)) {
    if (ts.isPrivateIdentifier(node.name)) return true;
    if (ts.getCombinedModifierFlags(node) & ts.ModifierFlags.Private) return true;
  }
  return false;
}

/** Nodes that carry a value's type only by inference: the checker supplies it. */
function inferred(node: ts.Node): boolean {
  if (ts.isVariableDeclaration(node) || ts.isPropertyDeclaration(node) || ts.isParameter(node)) return node.type === undefined;
  if (ts.isFunctionDeclaration(node) || ts.isMethodDeclaration(node) || ts.isGetAccessor(node) || ts.isArrowFunction(node))
    return node.type === undefined;
  return false;
}

/**
 * Walks each entry's exported declarations and every named declaration they reference (through
 * type references, `typeof`, heritage clauses and inferred types), and returns the named
 * declarations of the package (`isOwn` files) that the entry does not export.
 */
export function findForgottenExports(
  program: ts.Program,
  entries: readonly EntryFile[],
  isOwn: (fileName: string) => boolean,
): ForgottenExport[] {
  const checker = program.getTypeChecker();
  const resolveAlias = (symbol: ts.Symbol): ts.Symbol => (symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol);
  const forgotten: ForgottenExport[] = [];
  const exportsOf = new Map<EntryFile, Set<ts.Symbol>>();
  for (const entryFile of entries) {
    const source = program.getSourceFile(entryFile.file);
    const module = source === undefined ? undefined : checker.getSymbolAtLocation(source);
    if (module === undefined) throw new Error(`${entryFile.file}: not a module the compiler can read`);
    exportsOf.set(entryFile, new Set(checker.getExportsOfModule(module).map(resolveAlias)));
  }
  // nameable: what some entry of the package exports (the tracker's options name `CheckoutClient`,
  // which a partner imports from the main entry, as the function that makes one)
  const nameable = new Set([...exportsOf.values()].flatMap((symbols) => [...symbols]));

  for (const entryFile of entries) {
    const { entry } = entryFile;
    const exported = exportsOf.get(entryFile) ?? new Set<ts.Symbol>();
    const seen = new Set<ts.Symbol>();
    const reported = new Set<ts.Symbol>();
    const queue: { symbol: ts.Symbol; name: string }[] = [...exported].map((symbol) => ({ symbol, name: symbol.name }));
    for (const symbol of exported) seen.add(symbol);

    const use = (found: ts.Symbol | undefined, usedBy: string): void => {
      if (found === undefined) return;
      let symbol = resolveAlias(found);
      // a member of an enum or namespace is named through its parent
      const parent = (symbol as ts.Symbol & { parent?: ts.Symbol }).parent;
      if (symbol.flags & ts.SymbolFlags.EnumMember && parent !== undefined) symbol = parent;
      const declarations = symbol.declarations ?? [];
      if (!declarations.some((declaration) => NAMED.has(declaration.kind) && isOwn(declaration.getSourceFile().fileName))) return;
      if (!nameable.has(symbol) && !reported.has(symbol)) {
        reported.add(symbol);
        forgotten.push({ entry, name: symbol.name, usedBy });
      }
      if (!seen.has(symbol)) {
        seen.add(symbol);
        queue.push({ symbol, name: symbol.name });
      }
    };

    const visitType = (type: ts.Type, usedBy: string, depth: number): void => {
      if (depth > 6) return;
      if (type.aliasSymbol !== undefined) {
        use(type.aliasSymbol, usedBy);
        for (const argument of type.aliasTypeArguments ?? []) visitType(argument, usedBy, depth + 1);
        return;
      }
      if (type.isUnionOrIntersection()) {
        for (const member of type.types) visitType(member, usedBy, depth + 1);
        return;
      }
      const symbol = type.getSymbol();
      if (symbol !== undefined && (symbol.declarations ?? []).some((declaration) => NAMED.has(declaration.kind))) use(symbol, usedBy);
      if (type.flags & ts.TypeFlags.Object) {
        for (const argument of checker.getTypeArguments(type as ts.TypeReference)) visitType(argument, usedBy, depth + 1);
        if (
          symbol !== undefined &&
          symbol.flags & (ts.SymbolFlags.TypeLiteral | ts.SymbolFlags.ObjectLiteral | ts.SymbolFlags.Function | ts.SymbolFlags.Method)
        ) {
          for (const signature of type.getCallSignatures()) {
            visitType(signature.getReturnType(), usedBy, depth + 1);
            for (const parameter of signature.getParameters()) visitType(checker.getTypeOfSymbol(parameter), usedBy, depth + 1);
          }
          for (const property of type.getProperties()) visitType(checker.getTypeOfSymbol(property), usedBy, depth + 1);
        }
      }
    };

    const visit = (node: ts.Node, usedBy: string): void => {
      if (isHidden(node)) return;
      if (ts.isTypeReferenceNode(node)) use(checker.getSymbolAtLocation(node.typeName), usedBy);
      else if (ts.isExpressionWithTypeArguments(node)) use(checker.getSymbolAtLocation(node.expression), usedBy);
      else if (ts.isTypeQueryNode(node)) use(checker.getSymbolAtLocation(node.exprName), usedBy);
      else if (ts.isImportTypeNode(node) && node.qualifier !== undefined) use(checker.getSymbolAtLocation(node.qualifier), usedBy);
      if (inferred(node)) {
        const type = ts.isFunctionLike(node) ? checker.getSignatureFromDeclaration(node)?.getReturnType() : checker.getTypeAtLocation(node);
        if (type !== undefined) visitType(type, usedBy, 0);
      }
      // an initializer is implementation (its type, when not written, was taken above)
      if (ts.isVariableDeclaration(node) || ts.isPropertyDeclaration(node) || ts.isParameter(node)) {
        for (const child of [node.name, node.type]) if (child !== undefined) visit(child, usedBy);
        return;
      }
      ts.forEachChild(node, (child) => visit(child, usedBy));
    };

    for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
      for (const declaration of next.symbol.declarations ?? []) {
        if (!isOwn(declaration.getSourceFile().fileName)) continue;
        visit(declaration, next.name);
      }
    }
  }
  return forgotten;
}

/** The declaration files package.json's `exports` names, each with its import specifier. */
export function packageEntries(root: string): EntryFile[] {
  const pkg = JSON.parse(readFileSync(resolve(root, 'package.json'), 'utf8')) as { name: string; exports: Record<string, unknown> };
  const entries: EntryFile[] = [];
  const collect = (entry: string, condition: unknown): void => {
    if (typeof condition !== 'object' || condition === null) return;
    for (const [key, value] of Object.entries(condition)) {
      if (key === 'types' && typeof value === 'string') entries.push({ entry, file: resolve(root, value) });
      else collect(entry, value);
    }
  };
  for (const [key, value] of Object.entries(pkg.exports)) {
    if (key === './package.json') continue;
    collect(key === '.' ? pkg.name : `${pkg.name}/${key.slice(2)}`, value);
  }
  // the ESM and CommonJS flavours of an entry may point at the same file (the node build of ./webhooks)
  return entries.filter((candidate, index) => entries.findIndex((other) => other.file === candidate.file) === index);
}

/** Formats the report, one line per forgotten export. */
export function describeForgotten(forgotten: readonly ForgottenExport[]): string {
  return forgotten.map(({ entry, name, usedBy }) => `  ${entry}: ${name} (used by ${usedBy})`).join('\n');
}

function main(): void {
  const root = resolve(import.meta.dirname, '..');
  const entries = packageEntries(root);
  const program = ts.createProgram(
    entries.map(({ file }) => file),
    {
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      target: ts.ScriptTarget.ES2023,
      types: ['node'],
      skipLibCheck: true,
      noEmit: true,
    },
  );
  const dist = resolve(root, 'dist') + sep;
  const forgotten = findForgottenExports(program, entries, (fileName) => resolve(fileName).startsWith(dist));
  // one line per (entry, name): the .d.ts and .d.cts of an entry report the same names
  const unique = forgotten.filter(
    (item, index) => forgotten.findIndex((other) => other.entry === item.entry && other.name === item.name) === index,
  );
  if (unique.length > 0) {
    console.error(
      `check-exports: ${unique.length} forgotten exports (a public signature uses a type its entry does not export):\n${describeForgotten(unique)}`,
    );
    process.exit(1);
  }
  console.log(`check-exports: no forgotten export (${entries.length} declaration files checked)`);
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) main();
