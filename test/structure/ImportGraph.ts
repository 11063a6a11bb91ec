// The import graph of shared/src and services/*/src, by file and by folder, read from the source text: what the layer rules are checked against.
import { readdirSync, readFileSync } from "node:fs"
import { dirname, join, relative, resolve } from "node:path"

export const REPO_ROOT = resolve(import.meta.dirname, "../..")

/** One import of one file: its written specifier and, for an import of our own code, the repo-relative file it names. */
export interface Import {
  readonly from: string
  readonly specifier: string
  readonly target: string | null
}

// `import … from "x"`, `export … from "x"`, `import "x"` and `import("x")`; type-only imports count as well.
const IMPORT = /(?:\bfrom\s*|\bimport\s*\(?\s*)"([^"]+)"/g

const sourceFiles = (dir: string): Array<string> =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) return entry.name === "node_modules" ? [] : sourceFiles(path)
    return entry.name.endsWith(".ts") && !entry.name.endsWith(".spec.ts") ? [path] : []
  })

/** A file that only tests run: a spec, or a helper of specs (it imports vitest). */
const isTestCode = (text: string): boolean => /from "(@effect\/)?vitest"/.test(text)

/** Every non-test .ts file under shared/src and services/<svc>/src, repo-relative. */
export const productionFiles = (): Array<string> => {
  const roots = [
    join(REPO_ROOT, "shared/src"),
    ...readdirSync(join(REPO_ROOT, "services")).map((service) => join(REPO_ROOT, "services", service, "src"))
  ]
  return roots
    .flatMap(sourceFiles)
    .filter((path) => !isTestCode(readFileSync(path, "utf8")))
    .map((path) => relative(REPO_ROOT, path))
    .sort()
}

const targetOf = (from: string, specifier: string): string | null => {
  if (specifier.startsWith(".")) return relative(REPO_ROOT, resolve(REPO_ROOT, dirname(from), specifier))
  const shared = /^@mds\/shared\/(.+)$/.exec(specifier)
  if (shared !== null) return `shared/src/${shared[1]}${shared[1]?.endsWith(".ts") ? "" : ".ts"}`
  const service = /^@mds\/(gateway|extractor|aggregator)\/(.+)$/.exec(specifier)
  if (service !== null) return `services/${service[1]}/${service[2]}`
  return null
}

export const importsOf = (file: string): Array<Import> =>
  [...readFileSync(join(REPO_ROOT, file), "utf8").matchAll(IMPORT)].map((match) => {
    const specifier = match[1] ?? ""
    return { from: file, specifier, target: targetOf(file, specifier) }
  })

/**
 * The node a file belongs to in the folder graph: `shared/<top>` for shared/src/<top>/…, `<svc>/<top>` for
 * services/<svc>/src/<top>/…; a file at the top of a src folder (main.ts, a service's layer) is a node of its own.
 */
export const folderOf = (file: string): string | null => {
  const shared = /^shared\/src\/([^/]+)(\/)?/.exec(file)
  if (shared !== null) return `shared/${shared[1]}`
  const service = /^services\/([^/]+)\/src\/([^/]+)(\/)?/.exec(file)
  if (service !== null) return `${service[1]}/${service[2]}`
  return null
}

/** The service a file is part of, or null for shared code. */
export const serviceOf = (file: string): string | null => /^services\/([^/]+)\//.exec(file)?.[1] ?? null

/** The strongly connected components of more than one node (Tarjan): each is a set of nodes that import each other round. */
export const cyclesOf = (edges: ReadonlyMap<string, ReadonlySet<string>>): Array<Array<string>> => {
  const index = new Map<string, number>()
  const low = new Map<string, number>()
  const stack: Array<string> = []
  const onStack = new Set<string>()
  const components: Array<Array<string>> = []
  const visit = (node: string): void => {
    index.set(node, index.size)
    low.set(node, index.get(node) ?? 0)
    stack.push(node)
    onStack.add(node)
    for (const next of edges.get(node) ?? []) {
      if (!index.has(next)) {
        visit(next)
        low.set(node, Math.min(low.get(node) ?? 0, low.get(next) ?? 0))
      } else if (onStack.has(next)) low.set(node, Math.min(low.get(node) ?? 0, index.get(next) ?? 0))
    }
    if (low.get(node) === index.get(node)) {
      const component: Array<string> = []
      let member: string | undefined
      do {
        member = stack.pop()
        if (member === undefined) break
        onStack.delete(member)
        component.push(member)
      } while (member !== node)
      if (component.length > 1) components.push(component.sort())
    }
  }
  for (const node of [...edges.keys()].sort()) if (!index.has(node)) visit(node)
  return components
}

/** Adds the edge from → to, creating the node as needed. */
export const addEdge = (edges: Map<string, Set<string>>, from: string, to: string): void => {
  const next = edges.get(from) ?? new Set<string>()
  next.add(to)
  edges.set(from, next)
}
