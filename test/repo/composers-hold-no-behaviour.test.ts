import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import ts from 'typescript'
import { describe, expect, it } from 'vitest'

const root = join(import.meta.dirname, '..', '..')
const composers = ['src/main/services.ts', 'src/main/contributions.ts']

/** Clocks and timers: a composer that reads the time or schedules something polls or debounces. */
const timeNames = new Set([
  'setTimeout',
  'setInterval',
  'setImmediate',
  'queueMicrotask',
  'nextTick',
  'Date',
  'performance',
])
/** Calls that subscribe, or run SQL: reacting to events and reading tables are a capability's. */
const behaviourCalls = new Set([
  'on',
  'once',
  'off',
  'subscribe',
  'addListener',
  'addEventListener',
  'prepare',
  'exec',
  'query',
  'transaction',
  'pragma',
])
const sqlWords = /\b(?:SELECT|INSERT|UPDATE|DELETE|CREATE|PRAGMA|BEGIN)\b/
/** The only operators wiring needs: a fallback (`??`), a need given only when an option is
 * (`options.clock && (() => …)`), filling the started services (`services[name] = service`), and
 * the one shape test `'stop' in service`, allowed only as an `if`'s whole condition. */
const wiringOperators = new Set([
  ts.SyntaxKind.QuestionQuestionToken,
  ts.SyntaxKind.AmpersandAmpersandToken,
  ts.SyntaxKind.EqualsToken,
])

/** Nodes wiring is written with; anything else (a number, a comparison, `?:`, a template, `while`,
 * `try`, `switch`, `!x`, arithmetic) is a decision or a computation, which a capability owns. */
const wiringKinds = new Set([
  ts.SyntaxKind.SourceFile,
  ts.SyntaxKind.EndOfFileToken,
  ts.SyntaxKind.ImportDeclaration,
  ts.SyntaxKind.ImportClause,
  ts.SyntaxKind.NamedImports,
  ts.SyntaxKind.ImportSpecifier,
  ts.SyntaxKind.ExportKeyword,
  ts.SyntaxKind.AsyncKeyword,
  ts.SyntaxKind.FunctionDeclaration,
  ts.SyntaxKind.VariableStatement,
  ts.SyntaxKind.VariableDeclarationList,
  ts.SyntaxKind.VariableDeclaration,
  ts.SyntaxKind.ObjectBindingPattern,
  ts.SyntaxKind.BindingElement,
  ts.SyntaxKind.Block,
  ts.SyntaxKind.ExpressionStatement,
  ts.SyntaxKind.ReturnStatement,
  ts.SyntaxKind.ForOfStatement,
  ts.SyntaxKind.IfStatement,
  ts.SyntaxKind.AwaitExpression,
  ts.SyntaxKind.CallExpression,
  ts.SyntaxKind.PropertyAccessExpression,
  ts.SyntaxKind.ElementAccessExpression,
  ts.SyntaxKind.QuestionDotToken,
  ts.SyntaxKind.Identifier,
  ts.SyntaxKind.StringLiteral,
  ts.SyntaxKind.TrueKeyword,
  ts.SyntaxKind.ObjectLiteralExpression,
  ts.SyntaxKind.PropertyAssignment,
  ts.SyntaxKind.ShorthandPropertyAssignment,
  ts.SyntaxKind.ArrayLiteralExpression,
  ts.SyntaxKind.SpreadElement,
  ts.SyntaxKind.ArrowFunction,
  ts.SyntaxKind.EqualsGreaterThanToken,
  ts.SyntaxKind.Parameter,
  ts.SyntaxKind.ParenthesizedExpression,
  ts.SyntaxKind.AsExpression,
  ts.SyntaxKind.SatisfiesExpression,
  ts.SyntaxKind.NonNullExpression,
  ts.SyntaxKind.BinaryExpression,
  ts.SyntaxKind.NewExpression,
])

interface Finding {
  line: number
  what: string
}

/** Declarations of types: they hold no behaviour, whatever they are written with. */
const isType = (node: ts.Node) =>
  ts.isTypeNode(node) ||
  ts.isInterfaceDeclaration(node) ||
  ts.isTypeAliasDeclaration(node) ||
  ts.isTypeParameterDeclaration(node) ||
  (ts.isImportDeclaration(node) && node.importClause?.isTypeOnly === true)

/** A kind's name (`NumericLiteral`, not its alias `FirstLiteralToken`). */
const kindName = (kind: ts.SyntaxKind) =>
  kind === ts.SyntaxKind.NumericLiteral ? 'NumericLiteral' : ts.SyntaxKind[kind]

/** `'stop' in service`: which of its shapes a started service has (how the composer stops it). */
const isShapeTest = (node: ts.Node) =>
  ts.isBinaryExpression(node) &&
  node.operatorToken.kind === ts.SyntaxKind.InKeyword &&
  ts.isStringLiteral(node.left) &&
  ts.isIdentifier(node.right)

/** What is wrong with one node of wiring, if anything (its children are looked at on their own). */
function misfit(node: ts.Node, parent: ts.Node | undefined, inStartTable: boolean): string | null {
  if (!wiringKinds.has(node.kind)) return `${kindName(node.kind)} (a decision or a computation)`
  if (ts.isIdentifier(node) && timeNames.has(node.text)) return `${node.text} (a timer or a clock)`
  if (ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression)) {
    const name = node.expression.name.text
    if (behaviourCalls.has(name)) return `.${name}( (a subscription or SQL)`
  }
  if (ts.isStringLiteral(node) && sqlWords.test(node.text)) return `'${node.text}' (SQL)`
  if (ts.isNewExpression(node) && (node.arguments?.length ?? 0) > 0)
    return 'new … with arguments (a computation)'
  if (ts.isBinaryExpression(node)) {
    const op = node.operatorToken.kind
    const shapeTest = isShapeTest(node) && parent !== undefined && ts.isIfStatement(parent)
    if (!wiringOperators.has(op) && !shapeTest) return `${kindName(op)} (a decision or a computation)`
  }
  if (ts.isIfStatement(node) && !isShapeTest(node.expression))
    return 'if on something other than a service’s shape'
  if (inStartTable && ts.isArrowFunction(node) && ts.isBlock(node.body))
    return 'a need with a body of statements (a need is one call, read when called)'
  if (ts.isFunctionDeclaration(node) && parent !== undefined && !ts.isSourceFile(parent))
    return 'a function declared inside a function'
  return null
}

/** A start table: a top-level const whose value is a function (`listening`, `others`). Its needs
 * are single expressions; statements belong to the top-level functions that run the tables. */
const isStartTable = (node: ts.Node) =>
  ts.isVariableDeclaration(node) && node.initializer !== undefined && ts.isArrowFunction(node.initializer)

/** Each piece of behaviour in a composer's source: a node that is not wiring, with its line. */
export function behaviourIn(source: string, fileName = 'composer.ts'): Finding[] {
  const file = ts.createSourceFile(fileName, source, ts.ScriptTarget.Latest, true)
  const found: Finding[] = []
  const visit = (node: ts.Node, parent: ts.Node | undefined, inStartTable: boolean) => {
    // Types hold no behaviour; an operator is judged with its expression.
    if (isType(node) || (parent && ts.isBinaryExpression(parent) && parent.operatorToken === node)) return
    const what = misfit(node, parent, inStartTable)
    if (what) found.push({ line: lineOf(file, node), what })
    const table = inStartTable || isStartTable(node)
    node.forEachChild((child) => visit(child, node, table))
  }
  visit(file, undefined, false)
  return found
}

const lineOf = (file: ts.SourceFile, node: ts.Node) =>
  file.getLineAndCharacterOfPosition(node.getStart(file)).line + 1

const read = (path: string) => readFileSync(join(root, path), 'utf8')

/** `source` with `anchor` replaced by `replacement`; fails when the anchor is gone (a stale probe
 * would prove nothing). */
function edited(source: string, anchor: string, replacement: string): string {
  expect(source).toContain(anchor)
  return source.replace(anchor, replacement)
}

describe('the composers hold no behaviour: services.ts and contributions.ts are wiring only', () => {
  it.each(composers)('%s is imports, types, start tables and the loops that run them', (path) => {
    expect(behaviourIn(read(path), path)).toEqual([])
  })

  const services = read('src/main/services.ts')
  const anchor = '    publicUrl: () => startPublicUrlWatch(ctx, s.webhooks, s.env),\n'
  const probes: [string, string, RegExp][] = [
    [
      'a rule polling forward status every 5 s (issue 33’s case)',
      `${anchor}    poll: () => setInterval(() => s.forward.conditions(), 5000),\n`,
      /setInterval|NumericLiteral/,
    ],
    [
      'a subscription',
      `${anchor}    sub: () => s.webhooks.store.on('appended', () => s.alerts),\n`,
      /\.on\(/,
    ],
    [
      'a need that decides',
      `${anchor}    x: () => startReplay(ctx, { alert: (a) => { s.alerts.instant(a) } }),\n`,
      /body of statements/,
    ],
    [
      'an `if` on a capability’s state',
      `${anchor}    y: () => (s.sources.catchingUp() ? s.alerts : s.drift),\n`,
      /ConditionalExpression/,
    ],
    ['SQL', `${anchor}    z: () => ctx.db.prepare('SELECT 1 FROM events'),\n`, /SQL/],
    [
      'a comparison',
      `${anchor}    w: () => s.forward.conditions().length === 0 && s.alerts,\n`,
      /EqualsEqualsEqualsToken/,
    ],
    ['a template', `${anchor}    v: () => startReplay(ctx, \`\${s.env}\`),\n`, /Template/],
    ['a clock', `${anchor}    u: () => startClockGuard(ctx, { now: () => Date.now() }),\n`, /Date/],
  ]

  it.each(probes)('finds %s added to a copy of services.ts', (_name, replacement, what) => {
    const found = behaviourIn(edited(services, anchor, replacement))
    const added = services.slice(0, services.indexOf(anchor) + anchor.length).split('\n').length
    expect(found.map((f) => f.what).join('\n')).toMatch(what)
    expect(found.map((f) => f.line)).toEqual(found.map(() => added))
  })

  it('finds an `if` in the loops on anything but a service’s shape', () => {
    const source = edited(services, "if ('stop' in service)", 'if (service === running[0])')
    expect(behaviourIn(source).map((f) => f.what)).toContain('if on something other than a service’s shape')
  })
})
