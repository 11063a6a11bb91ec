// The Download tab: look a link up, queue a download or a playlist's batch, as the signed-in member's project, through
// the very /v1 handlers (resolve, download with an Idempotency-Key, batches): no second path, no key in the browser.
import type { Batch } from "@mds/shared/api/Batches"
import { MAX_URL_LENGTH } from "@mds/shared/api/Requests"
import type { JobAccepted, Media } from "@mds/shared/api/Responses"
import { Effect } from "effect"
import { createBatch } from "../../batches/createBatch.ts"
import { projectDestinations } from "../../destinations/DestinationUseCases.ts"
import { getBatch } from "../../batches/batchRoutes.ts"
import { queueDownloadOnce } from "../../jobs/queueDownloadOnce.ts"
import { toMediaResponse } from "../../media/MediaResponse.ts"
import { resolveMedia } from "../../media/resolveMedia.ts"
import { visibleMedia } from "../../media/visibleMedia.ts"
import { isRefusal, orRefusal, type Refusal, refusalReply } from "../ApiRefusal.ts"
import { DashboardConfig } from "../DashboardConfig.ts"
import { field, fields } from "../DashboardForms.ts"
import { type DashboardInput, type Member, pageReply, redirectReply, requireMember } from "../DashboardRoute.ts"
import { batchBodyOf, downloadBodyOf, type DownloadFormValues, downloadFormValues, emptyDownloadForm } from "../DownloadForm.ts"
import { answerData, memberPrincipal, v1Request } from "../MemberPrincipal.ts"
import { batchPage } from "../pages/BatchPage.ts"
import { downloadPage, type Looked } from "../pages/DownloadPage.ts"
import { randomToken } from "../session/DashboardAuth.ts"

/** Entries a playlist lookup lists (the API's largest page); "Download all" queues beyond them. */
const PLAYLIST_PAGE = { offset: 0, limit: 100 }

const baseOf = (member: Member) => `/dashboard/projects/${member.project.projectId}`

/** Where browsers reach this dashboard, for the bookmarklet: PUBLIC_BASE_URL's origin, else the request's own host. */
const originOf = Effect.fn("originOf")(function* (input: DashboardInput) {
  const configured = (yield* DashboardConfig).publicOrigin
  const host = input.headers["host"]
  return configured ?? `http://${typeof host === "string" ? host : "127.0.0.1"}`
})

const render = Effect.fn("renderDownload")(function* (
  input: DashboardInput,
  { signedIn, project }: Member,
  state: { readonly url: string; readonly playlist: boolean; readonly refusal: Refusal | null; readonly looked: Looked | null }
) {
  const origin = yield* originOf(input)
  // Offered only beside a looked-up media: the tab's first page needs none.
  const destinations =
    state.looked === null ? [] : (yield* projectDestinations(project.projectId)).map(({ destinationId, name }) => ({ destinationId, name }))
  return refusalReply(downloadPage({ viewer: signedIn.viewer, project, ...state, origin, destinations }), state.refusal)
})

/** The tab; `?url=` (the share route, the bookmarklet) fills the link in. Looking it up is the user's choice. */
export const showDownload = Effect.fn("showDownload")(function* (input: DashboardInput) {
  const member = yield* requireMember(input)
  const url = input.query?.["url"]
  const prefilled = typeof url === "string" && url.length <= MAX_URL_LENGTH ? url.trim() : ""
  return yield* render(input, member, { url: prefilled, playlist: false, refusal: null, looked: null })
})

const looked = (media: Media, values: DownloadFormValues, chosen: ReadonlySet<string> | null, requestToken: string): Looked => ({
  media,
  values,
  chosen,
  requestToken
})

/** POST /v1/media/resolve as the member's project; with the box ticked, as a playlist (the API's `playlist` page). */
export const lookUp = Effect.fn("lookUp")(function* (input: DashboardInput) {
  const member = yield* requireMember(input)
  const url = field(input.body, "url").trim()
  const playlist = field(input.body, "playlist") !== ""
  const body = playlist ? { url, playlist: PLAYLIST_PAGE } : { url }
  const resolved = yield* orRefusal(
    Effect.flatMap(memberPrincipal(member), (principal) => resolveMedia(v1Request("POST", { body }), principal))
  )
  if (isRefusal(resolved)) return yield* render(input, member, { url, playlist, refusal: resolved.refused, looked: null })
  const media = answerData(resolved) as Media
  return yield* render(input, member, {
    url,
    playlist,
    refusal: null,
    looked: looked(media, emptyDownloadForm, null, randomToken())
  })
})

/** After a refusal the form comes back as sent, with the media as the project may still see it (else only the link). */
const renderRefused = Effect.fn("renderRefusedDownload")(function* (
  input: DashboardInput,
  member: Member,
  refusal: Refusal,
  form: { readonly values: DownloadFormValues; readonly chosen: ReadonlySet<string> | null; readonly requestToken: string }
) {
  const url = field(input.body, "url")
  const media = yield* orRefusal(
    Effect.map(visibleMedia(field(input.body, "media_id"), member.project.projectId), (found) => toMediaResponse(found, PLAYLIST_PAGE))
  )
  return yield* render(input, member, {
    url,
    playlist: !isRefusal(media) && media.type === "playlist",
    refusal,
    looked: isRefusal(media) ? null : looked(media, form.values, form.chosen, form.requestToken)
  })
})

/**
 * POST /v1/media/download by the resolved media_id, with the form's one-time token as Idempotency-Key: a form sent
 * twice (a double click, a reload) queues one job. Then the job's page, which follows its progress.
 */
export const queue = Effect.fn("queueFromDashboard")(function* (input: DashboardInput) {
  const member = yield* requireMember(input)
  const values = downloadFormValues(input.body)
  const requestToken = field(input.body, "request")
  const headers: Record<string, string> = requestToken === "" ? {} : { "idempotency-key": requestToken }
  const body = downloadBodyOf(field(input.body, "media_id"), values)
  const queued = yield* orRefusal(
    Effect.flatMap(memberPrincipal(member), (principal) => queueDownloadOnce(v1Request("POST", { body, headers }), principal))
  )
  if (isRefusal(queued)) return yield* renderRefused(input, member, queued.refused, { values, chosen: null, requestToken })
  return redirectReply(`${baseOf(member)}/download/jobs/${(answerData(queued) as JobAccepted).job_id}`)
})

/** POST /v1/batches of the ticked entries ("Download all": every entry), then the batch's page. */
export const queueBatch = Effect.fn("queueBatchFromDashboard")(function* (input: DashboardInput) {
  const member = yield* requireMember(input)
  const values = downloadFormValues(input.body)
  const entries = field(input.body, "all") === "" ? fields(input.body, "entries") : null
  const body = batchBodyOf(field(input.body, "media_id"), entries, values)
  const created = yield* orRefusal(
    Effect.flatMap(memberPrincipal(member), (principal) => createBatch(v1Request("POST", { body }), principal))
  )
  if (isRefusal(created)) {
    return yield* renderRefused(input, member, created.refused, {
      values,
      chosen: entries === null ? null : new Set(entries),
      requestToken: ""
    })
  }
  return redirectReply(`${baseOf(member)}/download/batches/${(answerData(created) as Batch).id}`)
})

/** GET /v1/batches/{batchId} of the member's project (another project's batch is not found, as in the API). */
export const showBatch = Effect.fn("showBatch")(function* (input: DashboardInput) {
  const member = yield* requireMember(input)
  const principal = yield* memberPrincipal(member)
  const reply = yield* getBatch(v1Request("GET", { params: { batchId: input.params["batchId"] ?? "" } }), principal)
  return pageReply(batchPage({ viewer: member.signedIn.viewer, project: member.project, batch: answerData(reply) as Batch }))
})
