// The Jobs tab says how far a job's delivery came under its status; a job without a destination says nothing.
import { describe, expect, it } from "vitest"
import { jobView } from "../../../../../test/support/JobViews.ts"
import { deliveryText } from "./JobRows.ts"

const plain = jobView("prj_aaaaaaaaaaaaaaaaaaaaaaaa", { id: "job_aaaaaaaaaaaaaaaaaaaaaaaa" })
const delivery = {
  destinationId: "dst_a",
  path: "Chan/Talk.mp4",
  sidecars: [],
  status: "pending" as const,
  attempts: 0,
  retryAt: null,
  error: null,
  deliveredAt: null
}
const ordered = { ...plain, options: { delivery: { destinationId: "dst_a", pathTemplate: "{title}.{ext}", sidecars: [] } } }

describe("deliveryText", () => {
  it("is nothing for a job without a destination", () => expect(deliveryText(plain)).toBeNull())
  it("follows the delivery from the order to its end", () => {
    expect(deliveryText(ordered)).toBe("delivery: after the download")
    expect(deliveryText({ ...ordered, delivery })).toBe("delivering to Chan/Talk.mp4")
    expect(deliveryText({ ...ordered, delivery: { ...delivery, attempts: 2 } })).toBe("delivering to Chan/Talk.mp4 (2 failed)")
    expect(deliveryText({ ...ordered, delivery: { ...delivery, status: "delivered" } })).toBe("delivered: Chan/Talk.mp4")
    expect(
      deliveryText({ ...ordered, delivery: { ...delivery, status: "failed", error: { code: "destination_denied", message: "no" } } })
    ).toBe("not delivered: destination_denied")
  })
})
