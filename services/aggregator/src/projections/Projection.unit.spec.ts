// Which message came before a delivered one on its subject: the append's expectation, or the message before it in a batch.
import { describe, expect, it } from "vitest"
import { previousSubjectSeq } from "./Projection.ts"

const headersOf = (values: Record<string, string>) => ({ get: (name: string) => values[name] ?? "" })

describe("previousSubjectSeq", () => {
  it("is the expectation the event was appended with (0 for a subject's first event)", () => {
    expect(previousSubjectSeq(headersOf({ "Nats-Expected-Last-Subject-Sequence": "41" }), 57)).toBe(41)
    expect(previousSubjectSeq(headersOf({ "Nats-Expected-Last-Subject-Sequence": "0" }), 3)).toBe(0)
  })

  it("for a later event of a decision's batch, the message just before it (the batch is stored consecutively)", () => {
    expect(previousSubjectSeq(headersOf({ "Nats-Batch-Sequence": "1", "Nats-Expected-Last-Subject-Sequence": "12" }), 20)).toBe(12)
    expect(previousSubjectSeq(headersOf({ "Nats-Batch-Sequence": "2" }), 21)).toBe(20)
  })

  it("is unknown without either", () => {
    expect(previousSubjectSeq(headersOf({}), 5)).toBeUndefined()
    expect(previousSubjectSeq(undefined, 5)).toBeUndefined()
  })
})
