#!/usr/bin/env node
// No comment in src/ states a measured figure or cites a file outside this repository: figures
// live in the bench and docs/performance.md, contracts in docs/. Reads every comment of every .ts
// file under src/ with TypeScript's scanner (so strings and regexes are never taken for comments),
// prints each finding as file:line with the rule and the text, and fails when there is one.
//   node scripts/check-comments.mjs
// test/docs/comments.test.ts runs the same rules on examples and on src/.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** The rules: each a name and a test of one comment's text (what the finding quotes). */
export const RULES = [
  // a duration below a millisecond is a measurement, never a setting
  { name: 'a measured time', pattern: /\d[\d.,]*\s?(?:µs|μs|ns)\b/ },
  // sizes in decimal units (settings in this SDK are in bytes or MiB)
  { name: 'a measured size', pattern: /\d[\d.,]*\s?(?:KB|kB|MB|GB)\b/ },
  { name: 'a measured size', pattern: /\d[\s\S]{0,40}\bgzip\b|\bgzip\b[\s\S]{0,40}\d/ },
  { name: 'a comparison run', pattern: /\bA\/B\b/ },
  { name: 'a share of a cost', pattern: /\d\s?%[^.;]{0,60}\b(?:CPU|faster|slower|time|cost|allocations?)\b/i },
  {
    name: 'a speed-up',
    pattern: /\b(?:\d+(?:\.\d+)?\s?[x×]|several times|\d+ times)\s+(?:faster|slower|cheaper|quicker|more expensive)\b/i,
  },
  { name: 'a measurement', pattern: /\bmeasured\b(?:[^.;]{0,80})\d|\b(?:benchmarked|in the bench|per the bench)\b/i },
  {
    name: 'a file outside the repository',
    pattern: /\bAPI\.md\b|\bSTYLE\.md\b|\.\.\/shared\b|\bspec\/[\w-]+\.md\b|\bcheckout-service\.md\b/,
  },
];

/** Every .md name a comment cites must be a file of this repository (its root, docs/ or where the path says). */
function citesMissingFile(text) {
  for (const [cited] of text.matchAll(/[\w./-]*\b[\w-]+\.md\b/g)) {
    const path = cited.replace(/^\.\//, '');
    if (!existsSync(join(ROOT, path)) && !existsSync(join(ROOT, 'docs', path))) return cited;
  }
  return undefined;
}

/** The findings in one comment's text: `[rule, excerpt]` pairs. */
export function commentFindings(text) {
  const found = [];
  for (const rule of RULES) {
    const match = rule.pattern.exec(text);
    if (match !== null) found.push([rule.name, match[0]]);
  }
  const missing = citesMissingFile(text);
  if (missing !== undefined && !found.some(([, excerpt]) => excerpt === missing)) found.push(['a file outside the repository', missing]);
  return found;
}

const TRIVIA = new Set([
  ts.SyntaxKind.WhitespaceTrivia,
  ts.SyntaxKind.NewLineTrivia,
  ts.SyntaxKind.SingleLineCommentTrivia,
  ts.SyntaxKind.MultiLineCommentTrivia,
]);

/** Whether a `/` after a token of this kind begins a regular expression (not a division). */
function regexMayStart(kind) {
  return (
    kind === undefined ||
    !(
      kind === ts.SyntaxKind.Identifier ||
      kind === ts.SyntaxKind.NumericLiteral ||
      kind === ts.SyntaxKind.StringLiteral ||
      kind === ts.SyntaxKind.CloseParenToken ||
      kind === ts.SyntaxKind.CloseBracketToken ||
      kind === ts.SyntaxKind.CloseBraceToken ||
      kind === ts.SyntaxKind.TemplateTail ||
      kind === ts.SyntaxKind.NoSubstitutionTemplateLiteral ||
      kind === ts.SyntaxKind.ThisKeyword
    )
  );
}

/** Every comment of a TypeScript source, with the line it begins on (1-based). */
export function comments(source) {
  const scanner = ts.createScanner(ts.ScriptTarget.Latest, false, ts.LanguageVariant.Standard, source);
  const lineStarts = ts.computeLineStarts(source);
  let previous;
  const found = [];
  // the brace depth at which each open template literal's `${` expression ends
  const templates = [];
  let depth = 0;
  // bounded by the source: each scan moves forward by at least one character
  for (let steps = 0; steps <= source.length; steps += 1) {
    const kind = scanner.scan();
    if (kind === ts.SyntaxKind.EndOfFileToken) break;
    if (kind === ts.SyntaxKind.SingleLineCommentTrivia || kind === ts.SyntaxKind.MultiLineCommentTrivia) {
      const start = scanner.getTokenStart();
      found.push({ line: ts.computeLineOfPosition(lineStarts, start) + 1, text: scanner.getTokenText() });
    } else if (kind === ts.SyntaxKind.SlashToken || kind === ts.SyntaxKind.SlashEqualsToken) {
      // a regular expression literal where an expression may start: its body is not code
      if (regexMayStart(previous)) scanner.reScanSlashToken();
    } else if (kind === ts.SyntaxKind.TemplateHead) {
      templates.push(depth);
    } else if (kind === ts.SyntaxKind.OpenBraceToken) {
      depth += 1;
    } else if (kind === ts.SyntaxKind.CloseBraceToken) {
      if (templates.at(-1) === depth) {
        // the end of a `${...}`: the template's text goes on
        if (scanner.reScanTemplateToken(false) === ts.SyntaxKind.TemplateTail) templates.pop();
      } else depth -= 1;
    }
    if (!TRIVIA.has(kind)) previous = kind;
  }
  return found;
}

/** Every .ts file under `dir`. */
function sources(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? sources(join(dir, entry.name)) : entry.name.endsWith('.ts') ? [join(dir, entry.name)] : [],
  );
}

/** The findings under `dir` (src/ by default): `{ file, line, rule, excerpt }`. */
export function check(dir = join(ROOT, 'src')) {
  const findings = [];
  for (const file of sources(dir)) {
    for (const { line, text } of comments(readFileSync(file, 'utf8'))) {
      for (const [rule, excerpt] of commentFindings(text)) findings.push({ file: relative(ROOT, file), line, rule, excerpt });
    }
  }
  return findings;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const findings = check();
  for (const { file, line, rule, excerpt } of findings) console.error(`${file}:${line}: ${rule}: ${JSON.stringify(excerpt)}`);
  if (findings.length > 0) {
    console.error(
      `${findings.length} comment(s) state a measured figure or cite a file outside the repository: say what and why; figures go in the bench and docs/performance.md`,
    );
    process.exit(1);
  }
  console.log('comments: no measured figure, no file outside the repository');
}
