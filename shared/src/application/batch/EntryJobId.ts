// Extension: the job id of a batch entry, known before the job exists (the feeder queues it; a subscription's webhook names it).
import { derivedId } from "../../ids/Ids.ts"

/** The job of a batch entry: the same id however often the entry is fed, so a repeated feed queues nothing twice. */
export const entryJobId = (batchId: string, entryId: string) => derivedId("job", `${batchId}:${entryId}`)
