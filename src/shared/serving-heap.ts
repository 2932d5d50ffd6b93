import v8 from 'node:v8'
import { capYoungGeneration, SERVING_SEMI_SPACE_MB } from './young-generation.js'

// Imported at the top of the server's entry (src/main.ts), before the modules whose loading grows the
// young generation: the serving isolate's semi-spaces stay at or under SERVING_SEMI_SPACE_MB (ADR 0017).
// The growth factor that keeps them there is process-wide, so threads started later would stay at their
// first size: they start at the cap instead (a Worker's resourceLimits lowers it for a thread of its own).
v8.setFlagsFromString(`--min-semi-space-size=${SERVING_SEMI_SPACE_MB}`)
capYoungGeneration(SERVING_SEMI_SPACE_MB)
