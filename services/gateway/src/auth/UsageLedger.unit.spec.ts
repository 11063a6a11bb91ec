// Given key uses, then the ledger holds one entry per key with the latest time, and drains to empty.
import { describe, expect, it } from "vitest"
import { makeUsageLedger } from "./UsageLedger.ts"

describe("UsageLedger", () => {
  it("coalesces many uses of a key into one entry with the latest time", () => {
    const ledger = makeUsageLedger()
    for (let at = 1; at <= 1000; at++) ledger.touch({ keyId: "key_a", projectId: "prj_1", at })
    ledger.touch({ keyId: "key_b", projectId: "prj_2", at: 7 })
    ledger.touch({ keyId: "key_a", projectId: "prj_1", at: 500 })
    expect(ledger.drain()).toEqual([
      { keyId: "key_a", projectId: "prj_1", at: 1000 },
      { keyId: "key_b", projectId: "prj_2", at: 7 }
    ])
    expect(ledger.drain()).toEqual([])
  })

  it("restoring after a failed flush keeps a newer use noted in the meantime", () => {
    const ledger = makeUsageLedger()
    ledger.touch({ keyId: "key_a", projectId: "prj_1", at: 10 })
    const taken = ledger.drain()
    ledger.touch({ keyId: "key_a", projectId: "prj_1", at: 20 })
    ledger.restore(taken)
    ledger.restore([{ keyId: "key_c", projectId: "prj_1", at: 5 }])
    expect(ledger.drain()).toEqual([
      { keyId: "key_a", projectId: "prj_1", at: 20 },
      { keyId: "key_c", projectId: "prj_1", at: 5 }
    ])
  })
})
