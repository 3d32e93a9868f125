// A TypeDoc plugin (typedoc.json). A property that a mapped type makes under another name (the
// per-kind members: `[K in StatusKind as ReadName<K>]`) has no declaration, so TypeDoc finds no
// comment for it: it takes the one written above `[K in …]`, else its call signature's.
import { Converter, ReflectionType } from 'typedoc';
import ts from 'typescript';

/** @param {import('typedoc').Application} app */
export function load(app) {
  const uncommented = new Set();
  app.converter.on(Converter.EVENT_CREATE_DECLARATION, (context, reflection) => {
    if (reflection.comment !== undefined) return;
    const mapped = context.getSymbolFromReflection(reflection)?.links?.mappedType?.declaration;
    if (mapped === undefined || !ts.isMappedTypeNode(mapped)) return;
    // the comment above `[K in …]` leads the token after `{`
    const comment = context.getNodeComment(mapped.getChildren()[1] ?? mapped, false);
    if (comment === undefined) uncommented.add(reflection);
    else reflection.comment = comment;
  });
  // the property's type (and its signature's comment) is converted after the property is created
  app.converter.on(Converter.EVENT_RESOLVE_BEGIN, () => {
    for (const reflection of uncommented) {
      const type = reflection.type;
      const comment = type instanceof ReflectionType ? type.declaration.signatures?.[0]?.comment : undefined;
      if (comment !== undefined) reflection.comment = comment.clone();
    }
    uncommented.clear();
  });
}
