// The /v1 route table: every public endpoint, who may call it, and the use case that answers it.
import { serveDocsAsset, serveDocsPage } from "../docs/serveDocs.ts"
import { serveFile } from "../files/serveFile.ts"
import { listDeliveries } from "../webhooks/listDeliveries.ts"
import { checkHealth } from "../health/checkHealth.ts"
import { getJob } from "../jobs/getJob.ts"
import { JobReadShortcut } from "../jobs/JobReadShortcut.ts"
import { limitPolling } from "../limits/limitPolling.ts"
import { streamJobEvents } from "../jobs/streamJobEvents.ts"
import { queueDownloadOnce } from "../jobs/queueDownloadOnce.ts"
import { resolveMedia } from "../media/resolveMedia.ts"
import { listPlatforms } from "../platforms/listPlatforms.ts"
import { serveOpenApi } from "./api/serveOpenApi.ts"
import { keyedRoute, publicRoute, type Route, withShortcut } from "./Route.ts"

export const v1Routes = [
  publicRoute("GET", "/v1/health", () => checkHealth()),
  keyedRoute("GET", "/v1/platforms", null, () => listPlatforms()),
  keyedRoute("POST", "/v1/media/resolve", "media:resolve", resolveMedia),
  keyedRoute("POST", "/v1/media/download", "media:download", queueDownloadOnce),
  withShortcut(keyedRoute("GET", "/v1/jobs/:jobId", null, limitPolling(getJob)), JobReadShortcut),
  keyedRoute("GET", "/v1/jobs/:jobId/events", null, streamJobEvents),
  // The signature in the link is the credential: no API key, so links work in browsers.
  publicRoute("GET", "/v1/files/*", serveFile),
  keyedRoute("GET", "/v1/webhooks/deliveries", null, listDeliveries),
  publicRoute("GET", "/v1/openapi.json", serveOpenApi),
  // The human-readable API reference; outside /v1 because it is a page, not part of the API.
  publicRoute("GET", "/docs", serveDocsPage),
  publicRoute("GET", "/docs/*", serveDocsAsset)
]

/** Every service some route needs: what the application layer must provide. */
export type GatewayServices = (typeof v1Routes)[number] extends Route<infer R> ? R : never
