// DATA_DIR, read in one place: the root under which the services keep files (artifacts, work directories).
import { Config } from "effect"

export const DataDir = Config.String("DATA_DIR").pipe(Config.withDefault("./.data"))
