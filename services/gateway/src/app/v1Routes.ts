// The served routes: a handler bound to every /v1 endpoint of shared/src/api/V1Endpoints.ts, plus the /docs pages.
import { type OperationId, type V1, v1Endpoints } from "@mds/shared/api/V1Endpoints"
import { serveDocsAsset, serveDocsPage } from "../docs/serveDocs.ts"
import { serveFile } from "../files/serveFile.ts"
import { listDeliveries } from "../webhooks/listDeliveries.ts"
import { redeliverDelivery } from "../webhooks/redeliverDelivery.ts"
import { readUsage } from "../usage/readUsage.ts"
import { listCookies, removeCookies, uploadCookies } from "../cookies/cookieRoutes.ts"
import {
  createDestination,
  getDestination,
  listDestinations,
  removeDestination,
  testDestination
} from "../destinations/destinationRoutes.ts"
import { checkHealth } from "../health/checkHealth.ts"
import { cancelJob } from "../jobs/cancelJob.ts"
import { cancelBatch, getBatch } from "../batches/batchRoutes.ts"
import { createBatch } from "../batches/createBatch.ts"
import { readJob } from "../jobs/readJob.ts"
import {
  checkSubscription,
  createSubscription,
  getSubscription,
  listSubscriptions,
  pauseSubscription,
  removeSubscription,
  resumeSubscription
} from "../subscriptions/subscriptionRoutes.ts"
import { retryJob } from "../jobs/retryJob.ts"
import { stopJob } from "../jobs/stopJob.ts"
import { streamJobEvents } from "../jobs/streamJobEvents.ts"
import { streamProjectJobEvents } from "../jobs/streamProjectJobEvents.ts"
import { queueDownloadOnce } from "../jobs/queueDownloadOnce.ts"
import { resolveMedia } from "../media/resolveMedia.ts"
import { listPlatforms } from "../platforms/listPlatforms.ts"
import { serveOpenApi } from "../docs/serveOpenApi.ts"
import { effectHandler, endpointRoute, type Handler, type HandlerServices, pageRoute, publicHandler, type Route } from "../http/Route.ts"

/**
 * One handler per endpoint, under the endpoint's name: an endpoint without a handler does not compile. Method, path
 * and access (key, scope) come from the endpoint; the handler only answers. Every handler has the step shape; one
 * written as an Effect is made into it by `effectHandler` (`publicHandler` without a key).
 */
const handlers = {
  getHealth: publicHandler(() => checkHealth()),
  getOpenApi: publicHandler(serveOpenApi),
  listPlatforms: effectHandler(() => listPlatforms()),
  resolveMedia: effectHandler(resolveMedia),
  downloadMedia: effectHandler(queueDownloadOnce),
  getJob: readJob,
  cancelJob: effectHandler(cancelJob),
  retryJob: effectHandler(retryJob),
  stopJob: effectHandler(stopJob),
  createBatch: effectHandler(createBatch),
  getBatch: effectHandler(getBatch),
  cancelBatch: effectHandler(cancelBatch),
  createSubscription: effectHandler(createSubscription),
  listSubscriptions: effectHandler(listSubscriptions),
  getSubscription: effectHandler(getSubscription),
  pauseSubscription: effectHandler(pauseSubscription),
  resumeSubscription: effectHandler(resumeSubscription),
  checkSubscription: effectHandler(checkSubscription),
  removeSubscription: effectHandler(removeSubscription),
  streamJobEvents: effectHandler(streamJobEvents),
  streamProjectJobEvents: effectHandler(streamProjectJobEvents),
  getUsage: effectHandler(readUsage),
  listWebhookDeliveries: effectHandler(listDeliveries),
  redeliverWebhookDelivery: effectHandler(redeliverDelivery),
  listCookies: effectHandler(listCookies),
  uploadCookies: effectHandler(uploadCookies),
  removeCookies: effectHandler(removeCookies),
  createDestination: effectHandler(createDestination),
  listDestinations: effectHandler(listDestinations),
  getDestination: effectHandler(getDestination),
  removeDestination: effectHandler(removeDestination),
  testDestination: effectHandler(testDestination),
  // The signature in the link is the credential: no API key, so links work in browsers.
  downloadFile: publicHandler(serveFile)
} satisfies { readonly [K in OperationId]: Handler<(typeof V1)[K]> }

type V1Services = HandlerServices<(typeof handlers)[OperationId]>

export const v1Routes = [
  ...v1Endpoints.map(([id, endpoint]) => endpointRoute<V1Services>(endpoint, handlers[id] as Handler<typeof V1.getJob>)),
  // The human-readable API reference; outside /v1 because it is a page, not part of the API.
  pageRoute("GET", "/docs", serveDocsPage),
  pageRoute("GET", "/docs/*", serveDocsAsset)
]

/** Every service some route needs: what the application layer must provide. */
export type GatewayServices = (typeof v1Routes)[number] extends Route<infer R> ? R : never
