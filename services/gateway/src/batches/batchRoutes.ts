// Extension: GET and DELETE /v1/batches/:batchId: a batch's view, and its cancel (POST /v1/batches is createBatch.ts).
import { batchCommands } from "@mds/shared/application/batch/BatchCommands"
import { BatchNotFound } from "@mds/shared/domain/batch/BatchDecider"
import { BatchId } from "@mds/shared/ids/Ids"
import { Clock, Effect, Schema } from "effect"
import type { Principal } from "../auth/ApiKeyAuth.ts"
import { json, type RouteInput } from "../http/Route.ts"
import { loadBatchView } from "./BatchView.ts"

const isBatchId = Schema.is(BatchId)

const batchIdOf = (input: RouteInput) => {
  const batchId = input.params["batchId"] ?? ""
  return isBatchId(batchId) ? Effect.succeed(batchId) : Effect.fail(new BatchNotFound({ batchId }))
}

export const getBatch = Effect.fn("getBatch")(function* (input: RouteInput, principal: Principal) {
  return json(200, yield* loadBatchView(principal.projectId, yield* batchIdOf(input)))
})

/** No entry is started after this; the feeder cancels the entries' running jobs. Canceling twice answers the same. */
export const cancelBatch = Effect.fn("cancelBatch")(function* (input: RouteInput, principal: Principal) {
  const batchId = yield* batchIdOf(input)
  const now = yield* Clock.currentTimeMillis
  yield* batchCommands(principal.projectId, batchId)({ _tag: "CancelBatch", batchId, now })
  return json(200, yield* loadBatchView(principal.projectId, batchId))
})
