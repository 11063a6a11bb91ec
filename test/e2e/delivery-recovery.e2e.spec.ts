// End to end: a delivery survives its deliverer's death (the aggregator killed with kill -9 while the media's upload is
// held by a proxy in front of moto, then started again: delivered once, nothing under the final name meanwhile), and
// a rebuild of the jobs projection after deliveries (one delivered, one failed) gives every job's delivery as before.
import { Client } from "minio"
import { afterAll, describe, expect, it } from "vitest"
import { startHoldingS3Proxy } from "../support/HoldingS3Proxy.ts"
import { startMotoServer } from "../support/MotoServer.ts"
import { freePort } from "../support/NatsServer.ts"
import { apiRequest } from "./ApiClient.ts"
import { pollJobUntilFinished } from "./JobPolling.ts"
import { useMediaStack } from "./MediaStack.ts"
import { rebuildJobsAsOperator } from "./OperatorRebuild.ts"

const BUCKET = "mds-e2e-delivery-recovery"
const moto = await startMotoServer()
const proxy = await startHoldingS3Proxy(moto.endpoint)
afterAll(async () => {
  await proxy.close()
  await moto.close()
})
const motoUrl = new URL(moto.endpoint)
const s3 = new Client({ endPoint: motoUrl.hostname, port: Number(motoUrl.port), useSSL: false, accessKey: "a", secretKey: "b" })
await s3.makeBucket(BUCKET, "us-east-1")

/** A loopback port nobody listens on: an S3 endpoint that never answers. */
const closedPort = await freePort()
const e2e = useMediaStack({
  stack: (media) => ({
    env: {
      EGRESS_ALLOW: [media.hostPort, motoUrl.host, proxy.hostPort, `127.0.0.1:${closedPort}`].join(","),
      DELIVERY_RETRY_DELAYS: "1,1"
    }
  })
})

const objectsUnder = async (prefix: string): Promise<ReadonlyArray<string>> => {
  const names: Array<string> = []
  for await (const item of s3.listObjectsV2(BUCKET, prefix, true)) if (item.name !== undefined) names.push(item.name)
  return names.sort()
}

const createDestination = async (prefix: string, endpoint: string) => {
  const created = await apiRequest(e2e.stack.baseUrl, "POST", "/destinations", {
    key: e2e.key,
    json: {
      name: `Library ${prefix}`,
      type: "s3",
      endpoint,
      bucket: BUCKET,
      region: "us-east-1",
      prefix,
      access_key_id: "AKIADELIVERYE2E00002",
      secret_access_key: "delivery-recovery-secret-0123456789"
    }
  })
  expect(created.status, e2e.context(created)).toBe(201)
  return created.body.data.id as string
}

const download = (json: Record<string, unknown>) => apiRequest(e2e.stack.baseUrl, "POST", "/media/download", { key: e2e.key, json })

const finished = async (jobId: string) =>
  (await pollJobUntilFinished(e2e.stack.baseUrl, e2e.key, jobId, { logs: e2e.stack.logs, timeoutMs: 180_000 })).job

describe("delivery recovery", () => {
  it("the aggregator killed (-9) mid-upload: started again, it delivers the file once under its name, never a partial one", async () => {
    const destinationId = await createDestination("held", proxy.endpoint)
    proxy.holdPutsEndingWith(".mp4")
    const queued = await download({
      url: e2e.media.urls.mp4,
      format: "video_best",
      destination: { id: destinationId, path: "held/{id}.{ext}" },
      sidecars: ["nfo"]
    })
    expect(queued.status, e2e.context(queued)).toBe(202)
    const jobId: string = queued.body.data.job_id

    const heldPath = await proxy.nextHeld()
    const finalKey = heldPath.replace(`/${BUCKET}/`, "")
    expect(finalKey).toMatch(/^held\/held\/.+\.mp4$/)
    // While the upload is held (its sender alive, then dead): the sidecar is there, nothing under the media's name.
    expect(await objectsUnder("held/")).toEqual([finalKey.replace(/\.mp4$/, ".nfo")])
    await e2e.stack.stopProcess("aggregator", "SIGKILL")
    proxy.releaseHeld()
    proxy.holdPutsEndingWith(null)
    expect(await objectsUnder("held/")).toEqual([finalKey.replace(/\.mp4$/, ".nfo")])
    const stillWaiting = await apiRequest(e2e.stack.baseUrl, "GET", `/jobs/${jobId}`, { key: e2e.key })
    expect(stillWaiting.body.data.status, e2e.context(stillWaiting)).not.toBe("completed")

    await e2e.stack.startProcess("aggregator")
    const job = await finished(jobId)
    expect(job.status, `${JSON.stringify(job)}\n${e2e.stack.logs()}`).toBe("completed")
    expect(job.delivery).toMatchObject({ destination_id: destinationId, status: "delivered" })
    expect(`held/${job.delivery.path}`).toBe(finalKey)
    expect(await objectsUnder("held/")).toEqual([finalKey, finalKey.replace(/\.mp4$/, ".nfo")].sort())
    const stat = await s3.statObject(BUCKET, finalKey)
    expect(stat.size).toBe(job.result.size_bytes)
  })

  it("a jobs rebuild after deliveries (one delivered, one failed) gives every job's delivery as before", async () => {
    const reachable = await createDestination("replay", moto.endpoint)
    const unreachable = await createDestination("never", `http://127.0.0.1:${closedPort}`)
    const delivered = await download({ url: e2e.media.urls.mp4, format: "video_best", destination: { id: reachable } })
    const failed = await download({ url: e2e.media.urls.mp4, format: "video_best", destination: { id: unreachable } })
    expect(delivered.status, e2e.context(delivered)).toBe(202)
    expect(failed.status, e2e.context(failed)).toBe(202)
    const before = [await finished(delivered.body.data.job_id), await finished(failed.body.data.job_id)]
    expect(before.map((job) => [job.status, job.delivery.status])).toEqual([
      ["completed", "delivered"],
      ["failed", "failed"]
    ])

    const stdout = await rebuildJobsAsOperator(e2e.stack)
    expect(stdout).toMatch(/^jobs: \d+ events replayed into kv store mds_jobs_r\d+/)
    // A gateway started afresh reads every job from the rebuilt store.
    await e2e.stack.stopService("gateway")
    await e2e.stack.startService("gateway")
    const after = [await finished(delivered.body.data.job_id), await finished(failed.body.data.job_id)]
    expect(after.map((job) => job.delivery)).toEqual(before.map((job) => job.delivery))
    expect(after).toEqual(before)
  })
})
