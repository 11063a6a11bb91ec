// Given subjects added to the filter, then it answers "maybe" for every one of them and "never" for most others.
import { describe, expect, it } from "vitest"
import { makeSubjectBloomFilter } from "./SubjectBloomFilter.ts"

const subject = (i: number) => `mds.job.prj_${i % 97}.job_${i.toString(36).padStart(8, "0")}`

describe("SubjectBloomFilter", () => {
  it("an empty filter has seen nothing", () => {
    const filter = makeSubjectBloomFilter(1 << 16, 4)
    expect(Array.from({ length: 1_000 }, (_, i) => filter.mightContain(subject(i))).some(Boolean)).toBe(false)
  })

  it("every subject added is reported, and few of the others at a tenth of capacity", () => {
    const filter = makeSubjectBloomFilter(1 << 18, 4)
    for (let i = 0; i < 20_000; i++) filter.add(subject(i))
    for (let i = 0; i < 20_000; i++) expect(filter.mightContain(subject(i))).toBe(true)
    let wrong = 0
    for (let i = 20_000; i < 120_000; i++) if (filter.mightContain(subject(i))) wrong++
    // (1 - e^(-4 * 20,000 / 262,144))^4 is about 0.6%.
    expect(wrong / 100_000).toBeLessThan(0.02)
  })
})
