import ts from 'typescript';

/**
 * Reads the TSDoc comment above each property of a zod object schema, by name of the schema's
 * variable. The config schemas document their variables in comments, which zod does not keep at
 * run time; this reads them from the source so the configuration reference says what the code says.
 *
 * A schema is followed through the forms the config uses: an object literal, `z.object({...})`,
 * `base.extend({...})`, spreads of other objects (`...natsEnv`), and wrappers such as
 * `schema.superRefine(...)` or `z.preprocess(fn, schema)`.
 */
export class SchemaComments {
  private readonly declarations = new Map<string, ts.Expression>();

  constructor(sources: { fileName: string; text: string }[]) {
    for (const { fileName, text } of sources) {
      const file = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true);
      const visit = (node: ts.Node): void => {
        if (ts.isVariableDeclaration(node) && ts.isIdentifier(node.name) && node.initializer) {
          this.declarations.set(node.name.text, node.initializer);
        }
        ts.forEachChild(node, visit);
      };
      visit(file);
    }
  }

  /** Each property's comment, in source order; a property without one maps to ''. */
  of(variableName: string): Map<string, string> {
    const initializer = this.declarations.get(variableName);
    if (!initializer) throw new Error(`No variable named ${variableName} in the config sources`);
    const comments = new Map<string, string>();
    this.collect(initializer, comments, new Set([variableName]));
    return comments;
  }

  private collect(expression: ts.Expression, into: Map<string, string>, seen: Set<string>): void {
    if (ts.isObjectLiteralExpression(expression)) {
      for (const property of expression.properties) {
        if (ts.isSpreadAssignment(property)) this.collect(property.expression, into, seen);
        else if (property.name && (ts.isIdentifier(property.name) || ts.isStringLiteral(property.name))) {
          into.set(property.name.text, commentOf(property));
        }
      }
      return;
    }
    if (ts.isIdentifier(expression)) {
      const target = this.declarations.get(expression.text);
      if (target && !seen.has(expression.text)) this.collect(target, into, new Set([...seen, expression.text]));
      return;
    }
    if (ts.isCallExpression(expression)) {
      // `base.extend({...})` and `base.superRefine(...)`: the base's properties first.
      if (ts.isPropertyAccessExpression(expression.expression)) this.collect(expression.expression.expression, into, seen);
      // `z.object({...})`, `.extend({...})`, `z.preprocess(fn, schema)`: the shapes among the arguments.
      for (const argument of expression.arguments) {
        if (ts.isObjectLiteralExpression(argument) || ts.isIdentifier(argument) || ts.isCallExpression(argument)) this.collect(argument, into, seen);
      }
      return;
    }
    if (ts.isParenthesizedExpression(expression) || ts.isAsExpression(expression)) this.collect(expression.expression, into, seen);
  }
}

/** The text of the TSDoc block (`/** ... *\/`) right above a node, on one line. */
function commentOf(node: ts.Node): string {
  const docs = (node as { jsDoc?: ts.JSDoc[] }).jsDoc;
  const last = docs?.at(-1);
  if (!last) return '';
  const text = ts.getTextOfJSDocComment(last.comment) ?? '';
  return text.replace(/\s+/g, ' ').trim();
}
