// Given a delivery log (one entry per attempt, oldest first), then one row per delivery: latest attempt, attempts.
import { describe, expect, it } from "vitest"
import { deliveryRows } from "./DeliveryRows.ts"

const attempt = (id: string, n: number, outcome: string) => ({ id, n, outcome })

describe("deliveryRows", () => {
  it("keeps each delivery's latest attempt, counts its attempts, and puts the most recently attempted first", () => {
    const log = [attempt("a", 1, "will_retry"), attempt("b", 1, "delivered"), attempt("a", 2, "failed"), attempt("c", 1, "will_retry")]
    expect(deliveryRows(log, (entry) => entry.id)).toEqual([
      { latest: attempt("c", 1, "will_retry"), attempts: 1 },
      { latest: attempt("a", 2, "failed"), attempts: 2 },
      { latest: attempt("b", 1, "delivered"), attempts: 1 }
    ])
  })

  it("counts a redelivery's attempts on after the first series", () => {
    const log = [attempt("a", 1, "failed"), attempt("b", 1, "delivered"), attempt("a", 1, "delivered")]
    expect(deliveryRows(log, (entry) => entry.id)[0]).toEqual({ latest: attempt("a", 1, "delivered"), attempts: 2 })
  })

  it("an empty log has no rows", () => {
    expect(deliveryRows([], String)).toEqual([])
  })
})
