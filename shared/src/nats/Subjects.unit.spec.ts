import { Option } from "effect"
import { describe, expect, it } from "vitest"
import { jobViewSubject } from "../readmodel/kv/KvJobReadModel.ts"
import type { SubjectKind } from "./SubjectKind.ts"
import {
  admissionSubject,
  archiveSubject,
  batchSubject,
  cookieJarSubject,
  idempotencySubject,
  jobSubject,
  keySubject,
  keyUsageSubject,
  mediaSubject,
  platformHealthSubject,
  projectSubject,
  streamOf,
  subscriptionSubject,
  userSubject,
  webhookConfigSubject,
  webhookDeliverySubject,
  webhookRedeliverSubject,
  ytDlpWorkerSubject
} from "./Subjects.ts"

/** NATS subject matching: `*` is one token, `>` one or more at the end. */
const matches = (filter: string, subject: string): boolean => {
  const want = filter.split(".")
  const got = subject.split(".")
  for (let i = 0; i < want.length; i++) {
    if (want[i] === ">") return got.length > i
    if (i >= got.length || (want[i] !== "*" && want[i] !== got[i])) return false
  }
  return got.length === want.length
}

interface Case {
  readonly kind: SubjectKind<ReadonlyArray<string>>
  readonly ids: Record<string, string>
  readonly subject: string
  readonly stream: string
}

const kinds: ReadonlyArray<Case> = [
  { kind: jobSubject, ids: { projectId: "prj_a", jobId: "job_b" }, subject: "mds.job.prj_a.job_b", stream: "MDS_JOBS" },
  { kind: batchSubject, ids: { projectId: "prj_a", batchId: "bat_b" }, subject: "mds.batch.prj_a.bat_b", stream: "MDS_BATCHES" },
  { kind: admissionSubject, ids: { projectId: "prj_a" }, subject: "mds.admission.prj_a", stream: "MDS_ADMISSION" },
  { kind: mediaSubject, ids: { mediaId: "med_a" }, subject: "mds.media.med_a", stream: "MDS_MEDIA" },
  { kind: projectSubject, ids: { projectId: "prj_a" }, subject: "mds.account.project.prj_a", stream: "MDS_ACCOUNTS" },
  { kind: keySubject, ids: { keyId: "key_a" }, subject: "mds.account.key.key_a", stream: "MDS_ACCOUNTS" },
  { kind: userSubject, ids: { userId: "usr_a" }, subject: "mds.account.user.usr_a", stream: "MDS_ACCOUNTS" },
  { kind: keyUsageSubject, ids: { keyId: "key_a" }, subject: "mds.keyuse.key_a", stream: "MDS_KEY_USAGE" },
  { kind: ytDlpWorkerSubject, ids: { workerId: "w-1_a" }, subject: "mds.catalog.ytdlp.worker.w-1_a", stream: "MDS_CATALOG" },
  { kind: platformHealthSubject, ids: { platformId: "youtube" }, subject: "mds.platform.health.youtube", stream: "MDS_PLATFORMS" },
  { kind: webhookConfigSubject, ids: { projectId: "prj_a" }, subject: "mds.webhook.config.prj_a", stream: "MDS_WEBHOOKS" },
  { kind: webhookDeliverySubject, ids: { projectId: "prj_a" }, subject: "mds.webhook.delivery.prj_a", stream: "MDS_WEBHOOKS" },
  { kind: webhookRedeliverSubject, ids: { projectId: "prj_a" }, subject: "mds.webhook.redeliver.prj_a", stream: "MDS_WEBHOOKS" },
  {
    kind: idempotencySubject,
    ids: { projectId: "prj_a", keyHash: "f00d" },
    subject: "mds.idempotency.prj_a.f00d",
    stream: "MDS_IDEMPOTENCY"
  },
  {
    kind: subscriptionSubject,
    ids: { projectId: "prj_a", subscriptionId: "sub_b" },
    subject: "mds.subscription.prj_a.sub_b",
    stream: "MDS_SUBSCRIPTIONS"
  },
  { kind: archiveSubject, ids: { projectId: "prj_a", keyHash: "beef" }, subject: "mds.archive.prj_a.beef", stream: "MDS_ARCHIVE" },
  { kind: cookieJarSubject, ids: { projectId: "prj_a", platform: "youtube" }, subject: "mds.cookies.prj_a.youtube", stream: "MDS_COOKIES" }
]

const build = ({ kind, ids }: Case) => kind(...kind.parts.map((part) => ids[part]!))

describe.each(kinds)("the subject kind $subject", (c) => {
  it("builds the subject from its ids, in its stream", () => {
    expect(build(c)).toBe(c.subject)
    expect(streamOf(build(c)).name).toBe(c.stream)
  })

  it("parses what it builds back into the same ids", () => {
    expect(c.kind.parse(build(c))).toEqual(Option.some(c.ids))
  })

  it("refuses a subject with a token missing, one too many, an empty or wildcard id, or another prefix", () => {
    const tokens = c.subject.split(".")
    const last = tokens.length - 1
    const malformed = [
      tokens.slice(0, -1).join("."),
      `${c.subject}.extra`,
      [...tokens.slice(0, -1), ""].join("."),
      [...tokens.slice(0, -1), "*"].join("."),
      [...tokens.slice(0, -1), ">"].join("."),
      ["nds", ...tokens.slice(1)].join("."),
      tokens.map((token, i) => (i === last - c.kind.parts.length ? `${token}x` : token)).join("."),
      ""
    ]
    for (const subject of malformed) expect(c.kind.parse(subject), subject).toEqual(Option.none())
  })

  it("writes its pattern from the part names, as the event catalogue shows it", () => {
    expect(c.kind.pattern).toBe([c.kind.prefix, ...c.kind.parts.map((part) => `<${part}>`)].join("."))
  })

  it("filters every subject of the kind with `all`, and no subject of another kind", () => {
    expect(matches(c.kind.all, build(c))).toBe(true)
    for (const other of kinds) if (other.kind !== c.kind) expect(matches(c.kind.all, build(other)), other.subject).toBe(false)
  })
})

describe("filters under leading ids", () => {
  it("keeps a project's jobs, batches, archive entries and cookie files, and no other project's", () => {
    for (const kind of [jobSubject, batchSubject, archiveSubject, cookieJarSubject, subscriptionSubject, idempotencySubject]) {
      const filter = kind.within("prj_a")
      expect(filter).toBe(`${kind.prefix}.prj_a.*`)
      expect(matches(filter, kind("prj_a", "x_1"))).toBe(true)
      expect(matches(filter, kind("prj_b", "x_1"))).toBe(false)
    }
  })

  it("ends with > while more than one part is left open", () => {
    expect(jobSubject.within()).toBe("mds.job.>")
    expect(admissionSubject.within()).toBe("mds.admission.*")
  })
})

describe("the yt-dlp worker's id", () => {
  it("is made to fit one token, and the subject parses to the token", () => {
    const subject = ytDlpWorkerSubject("host.local:4/a b")
    expect(subject).toBe("mds.catalog.ytdlp.worker.host_local_4_a_b")
    expect(ytDlpWorkerSubject.parse(subject)).toEqual(Option.some({ workerId: "host_local_4_a_b" }))
  })
})

describe("a job document's subject in a watched bucket", () => {
  it("is the bucket's KV prefix and the document's key, parsed back; the watch's filter keeps one bucket", () => {
    const subject = jobViewSubject("mds_jobs_r1", "prj_a", "job_b")
    expect(subject).toBe("$KV.mds_jobs_r1.prj_a.job_b")
    expect(jobViewSubject.parse(subject)).toEqual(Option.some({ bucket: "mds_jobs_r1", projectId: "prj_a", jobId: "job_b" }))
    expect(jobViewSubject.parse("$KV.mds_jobs_r1.prj_a")).toEqual(Option.none())
    expect(jobViewSubject.within("mds_jobs_r1")).toBe("$KV.mds_jobs_r1.>")
    expect(matches(jobViewSubject.within("mds_jobs_r1"), jobViewSubject("mds_jobs", "prj_a", "job_b"))).toBe(false)
  })
})
