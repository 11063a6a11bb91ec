// The layers kept for good: the domain imports only effect and itself, adapters never the application, no folder or file loop, no service imports another.
import { describe, expect, it } from "vitest"
import { addEdge, cyclesOf, folderOf, type Import, importsOf, productionFiles, serviceOf } from "./ImportGraph.ts"

const files = productionFiles()
const imports = files.flatMap(importsOf)
const shown = (found: ReadonlyArray<Import>): Array<string> => found.map((i) => `${i.from} imports "${i.specifier}"`)

describe("the layers of shared/src and services/*/src", () => {
  it("reads the source tree", () => {
    // A guard on the reader itself: a wrong root would find nothing and every rule below would pass.
    expect(files.filter((file) => file.startsWith("shared/src/domain/")).length).toBeGreaterThan(50)
    expect(files.filter((file) => file.startsWith("services/")).length).toBeGreaterThan(200)
    expect(imports.filter((i) => i.target !== null).length).toBeGreaterThan(1000)
  })

  it("keeps the domain at the ground floor: a domain file imports only effect and other domain modules", () => {
    const outside = imports.filter(
      (i) => i.from.startsWith("shared/src/domain/") && i.specifier !== "effect" && !i.target?.startsWith("shared/src/domain/")
    )
    expect(shown(outside)).toEqual([])
  })

  it("keeps the shared layers pointing down: only api/ imports application/, and nothing in shared imports api/", () => {
    const upward = imports.filter((i) => {
      if (!i.from.startsWith("shared/src/") || i.target === null) return false
      const from = folderOf(i.from)
      const to = folderOf(i.target)
      if (to === "shared/application") return from !== "shared/application" && from !== "shared/api"
      return to === "shared/api" && from !== "shared/api"
    })
    expect(shown(upward)).toEqual([])
  })

  it("has no folder that imports a folder importing it, directly or round a longer loop", () => {
    const edges = new Map<string, Set<string>>()
    for (const i of imports) {
      const from = folderOf(i.from)
      const to = i.target === null ? null : folderOf(i.target)
      if (from !== null && to !== null && from !== to) addEdge(edges, from, to)
    }
    const loops = cyclesOf(edges).map((loop) => {
      const members = new Set(loop)
      const inside = imports.filter((i) => {
        const from = folderOf(i.from)
        const to = i.target === null ? null : folderOf(i.target)
        return from !== null && to !== null && from !== to && members.has(from) && members.has(to)
      })
      return { loop, imports: shown(inside) }
    })
    expect(loops).toEqual([])
  })

  it("has no file that imports a file importing it, directly or round a longer loop", () => {
    const edges = new Map<string, Set<string>>()
    for (const i of imports) if (i.target !== null && i.target !== i.from) addEdge(edges, i.from, i.target)
    expect(cyclesOf(edges)).toEqual([])
  })

  it("has no service importing another service, and shared importing none", () => {
    const across = imports.filter((i) => {
      const to = i.target === null ? null : serviceOf(i.target)
      return to !== null && to !== serviceOf(i.from)
    })
    expect(shown(across)).toEqual([])
  })
})
