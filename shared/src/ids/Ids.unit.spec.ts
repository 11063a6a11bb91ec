// Derived ids: the same seed gives the same valid id; another seed another one.
import { Schema } from "effect"
import { describe, expect, it } from "vitest"
import { BatchId, derivedId, JobId, newId } from "./Ids.ts"

describe("derivedId", () => {
  it("is stable for a seed, different for another, and a valid id of its prefix", () => {
    const a = derivedId("job", "bat_x:ent_1")
    expect(derivedId("job", "bat_x:ent_1")).toBe(a)
    expect(derivedId("job", "bat_x:ent_2")).not.toBe(a)
    expect(Schema.is(JobId)(a)).toBe(true)
    expect(Schema.is(BatchId)(newId("bat"))).toBe(true)
  })
})
