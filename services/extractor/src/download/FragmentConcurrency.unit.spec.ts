import { describe, expect, it } from "vitest"
import type { PlatformEntry } from "@mds/shared/domain/platform/PlatformTable"
import { concurrentFragmentsFor } from "./FragmentConcurrency.ts"

const entry = (id: string, concurrentFragments?: number): PlatformEntry => ({
  id,
  name: id,
  capabilities: ["video"],
  hosts: [],
  extractors: [],
  ...(concurrentFragments === undefined ? {} : { concurrentFragments })
})

describe("concurrentFragmentsFor", () => {
  const table = [entry("strict", 1), entry("vimeo")]

  it("given no setting for the platform, it is the default", () => {
    expect(concurrentFragmentsFor({ byDefault: 8, overrides: new Map(), table }, "vimeo")).toBe(8)
    expect(concurrentFragmentsFor({ byDefault: 8, overrides: new Map(), table }, "some_derived_platform")).toBe(8)
  })

  it("given a setting in the platform table, it is the table's", () => {
    expect(concurrentFragmentsFor({ byDefault: 8, overrides: new Map(), table }, "strict")).toBe(1)
  })

  it("given a configured override, it wins over the table and the default", () => {
    const overrides = new Map([
      ["strict", 3],
      ["vimeo", 1]
    ])
    expect(concurrentFragmentsFor({ byDefault: 8, overrides, table }, "strict")).toBe(3)
    expect(concurrentFragmentsFor({ byDefault: 8, overrides, table }, "vimeo")).toBe(1)
  })
})
