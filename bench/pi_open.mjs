// Pi 1.6.0 opening a session as it does on resume: SessionManager.open, then the branch
// and the context it sends. Usage: node bench/pi_open.mjs FILE (PI_ORACLE_MODULE_DIR set).
import { join } from "node:path";
import { pathToFileURL } from "node:url";
const dir = process.env.PI_ORACLE_MODULE_DIR;
const { SessionManager } = await import(pathToFileURL(join(dir, "dist", "core", "session-manager.js")).href);
const sm = SessionManager.open(process.argv[2]);
const branch = sm.getBranch();
process.stdout.write(`${branch.length}\n`);
