// The setting that selects MongoDB for the read models, apart from the adapter so that reading it loads no driver.
import { Config } from "effect"

/** The URL may carry credentials, so it is redacted in logs and errors. */
export const MONGO_URL = Config.Redacted("MONGO_URL")
