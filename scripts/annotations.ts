// Run by Node as it is (types stripped): erasable syntax only.
// Comments of built JavaScript that carry a bundler annotation (`@__PURE__`, `#__PURE__`,
// `@__NO_SIDE_EFFECTS__`) where no bundler can use it. Rollup (so Vite) warns on each such comment in
// a partner's build, naming the SDK's file: a comment that mentions an annotation in prose, or one
// placed anywhere but right before what it annotates. scripts/check-dist.mjs fails on any in dist/.
import ts from 'typescript';

const MENTION = /[@#]__(?:PURE|NO_SIDE_EFFECTS)__/;
const PURE = /^\/\*\s*[@#]__PURE__\s*\*\/$/;
const NO_SIDE_EFFECTS = /^\/\*\s*[@#]__NO_SIDE_EFFECTS__\s*\*\/$/;

/** A comment that carries an annotation by accident, and its line (from 1). */
export interface MisplacedAnnotation {
  line: number;
  comment: string;
}

/**
 * The comments of `text` (JavaScript) that carry an annotation by accident: every one that
 * mentions it, except `/* @__PURE__ *\/` right before a call or a `new`, and
 * `/* @__NO_SIDE_EFFECTS__ *\/` right before a function (a declaration, or a variable or export of one).
 */
export function misplacedAnnotations(text: string): MisplacedAnnotation[] {
  if (!MENTION.test(text)) return [];
  const source = ts.createSourceFile('built.js', text, ts.ScriptTarget.Latest, true, ts.ScriptKind.JS);
  const calls = new Set<number>();
  const functions = new Set<number>();
  const comments = new Map<number, ts.CommentRange>();
  const visit = (node: ts.Node): void => {
    if (ts.isCallExpression(node) || ts.isNewExpression(node)) calls.add(node.getStart(source));
    if (ts.isFunctionDeclaration(node) || ts.isVariableStatement(node) || ts.isFunctionExpression(node) || ts.isArrowFunction(node)) {
      functions.add(node.getStart(source));
    }
    // every comment is the leading or trailing trivia of some token, and getChildren() yields tokens too
    for (const range of [...(ts.getLeadingCommentRanges(text, node.pos) ?? []), ...(ts.getTrailingCommentRanges(text, node.pos) ?? [])]) {
      comments.set(range.pos, range);
    }
    for (const child of node.getChildren(source)) visit(child);
  };
  visit(source);
  const found: MisplacedAnnotation[] = [];
  for (const range of [...comments.values()].sort((a, b) => a.pos - b.pos)) {
    const comment = text.slice(range.pos, range.end);
    if (!MENTION.test(comment)) continue;
    const next = codeAfter(text, range.end, comments);
    if (PURE.test(comment) && calls.has(next)) continue;
    if (NO_SIDE_EFFECTS.test(comment) && (functions.has(next) || /^export\s/.test(text.slice(next, next + 7)))) continue;
    found.push({ line: source.getLineAndCharacterOfPosition(range.pos).line + 1, comment });
  }
  return found;
}

/** Where the code after `from` begins: past whitespace and the comments found. */
function codeAfter(text: string, from: number, comments: ReadonlyMap<number, ts.CommentRange>): number {
  let at = from;
  // each turn moves past a character or a comment: at most text.length turns
  while (at < text.length) {
    if (/\s/.test(text.charAt(at))) {
      at += 1;
      continue;
    }
    const comment = comments.get(at);
    if (comment === undefined) return at;
    at = comment.end;
  }
  return at;
}
