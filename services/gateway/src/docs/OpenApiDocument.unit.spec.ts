// The generated OpenAPI document bounds every value a client chooses: each string, number and array of each request
// body, query parameter, header and path parameter says how big it may be.
import { describe, expect, it } from "vitest"
import { buildOpenApiDocument } from "./OpenApiDocument.ts"

type Json = Record<string, any>

const document = buildOpenApiDocument({ version: "test" }) as Json

const resolveRef = (schema: Json): Json => {
  const ref: unknown = schema["$ref"]
  if (typeof ref !== "string") return schema
  return resolveRef(document["components"]["schemas"][ref.replace("#/components/schemas/", "")] as Json)
}

/** A pattern whose every repetition has an upper bound (no *, +, {n,} outside a class): it bounds the length by itself. */
const patternIsBounded = (pattern: string) => !/[*+]|\{\d+,\}/u.test(pattern.replace(/\\./gu, "e").replace(/\[(?:[^\]\\]|\\.)*\]/gu, "c"))

/** The values of `schema` that have no bound, by where they are. */
const unbounded = (schema: Json, where: string, seen = new Set<Json>()): ReadonlyArray<string> => {
  const resolved = resolveRef(schema)
  if (seen.has(resolved)) return []
  seen.add(resolved)
  // allOf narrows one value: its parts are checks on the parent's type.
  const { allOf, ...parent } = resolved
  if (Array.isArray(allOf)) return unbounded(Object.assign({}, parent, ...(allOf as Array<Json>)), where, seen)
  const branches = [...(resolved["anyOf"] ?? []), ...(resolved["oneOf"] ?? [])] as Array<Json>
  if (branches.length > 0) return branches.flatMap((branch, index) => unbounded(branch, `${where}|${index}`, seen))
  if (resolved["enum"] !== undefined || resolved["const"] !== undefined) return []
  switch (resolved["type"]) {
    case "string": {
      const pattern = resolved["pattern"] as string | undefined
      return resolved["maxLength"] !== undefined || (pattern !== undefined && patternIsBounded(pattern)) ? [] : [`${where}: string`]
    }
    case "integer":
    case "number": {
      const bounded = (value: unknown) => typeof value === "number" && Math.abs(value) < Number.MAX_SAFE_INTEGER
      return bounded(resolved["minimum"]) && bounded(resolved["maximum"]) ? [] : [`${where}: number`]
    }
    case "array":
      return [
        ...(resolved["maxItems"] === undefined ? [`${where}: array`] : []),
        ...unbounded(resolved["items"] as Json, `${where}[]`, seen)
      ]
    case "object":
      return Object.entries((resolved["properties"] ?? {}) as Record<string, Json>).flatMap(([name, property]) =>
        unbounded(property, `${where}.${name}`, seen)
      )
    case "boolean":
    case "null":
      return []
    default:
      return [`${where}: ${String(resolved["type"])}`]
  }
}

describe("the OpenAPI document's requests", () => {
  const operations = Object.entries(document["paths"] as Record<string, Record<string, Json>>).flatMap(([path, item]) =>
    Object.entries(item).map(([method, operation]) => ({ name: `${method.toUpperCase()} ${path}`, operation }))
  )

  it("bound every body field, query parameter, header and path parameter a client chooses", () => {
    const found = operations.flatMap(({ name, operation }) => [
      ...((operation["parameters"] ?? []) as Array<Json>).flatMap((parameter) =>
        unbounded(parameter["schema"] as Json, `${name} ${parameter["in"]} ${parameter["name"]}`)
      ),
      ...Object.values((operation["requestBody"]?.["content"] ?? {}) as Record<string, Json>).flatMap((content) =>
        unbounded(content["schema"] as Json, `${name} body`)
      )
    ])
    expect(found).toEqual([])
  })

  it("show the subscription bounds: check_every 900 s to 30 days, backfill 0..50, url up to 2048", () => {
    const body = resolveRef(document["components"]["schemas"]["CreateSubscriptionRequest"] as Json)["properties"] as Json
    expect(body["check_every"]).toMatchObject({ minimum: 900, maximum: 2_592_000 })
    expect(body["backfill"]).toMatchObject({ minimum: 0, maximum: 50 })
    expect(resolveRef(body["url"] as Json)).toMatchObject({ maxLength: 2048 })
    const filters = resolveRef(body["filters"] as Json)["properties"] as Json
    expect(filters["published_after"]["pattern"]).toMatch(/^\^/u)
  })
})

describe("the document's patterns", () => {
  /** Every `pattern` anywhere in the document. */
  const patterns = (node: unknown): ReadonlyArray<string> =>
    Array.isArray(node)
      ? node.flatMap(patterns)
      : typeof node === "object" && node !== null
        ? Object.entries(node).flatMap(([key, value]) => (key === "pattern" && typeof value === "string" ? [value] : patterns(value)))
        : []

  it("are ones a client's generator can build values for: no Unicode property escapes (\\p{…}), which ECMA and Python patterns read apart", () => {
    const all = patterns(document)
    expect(all.length).toBeGreaterThan(10)
    expect(all.filter((pattern) => /\\[pP]\{/u.test(pattern))).toEqual([])
  })
})
