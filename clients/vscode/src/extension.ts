// The accls extension: start the language server, pass it the `accls.*` settings,
// and offer four commands; the full report on a loop opens as a Markdown preview.
// Everything else (hover, lenses, diagnostics, code actions) comes from the server.
import * as vscode from "vscode";
import {
  ExecuteCommandRequest,
  LanguageClient,
  LanguageClientOptions,
  ServerOptions,
  State,
} from "vscode-languageclient/node";

const SECTION = "accls";
const CHECK_LOOP = "accls.checkLoop";
// The full report on a loop, opened as a Markdown preview of a virtual document.
const EXPLAIN_LOOP = "accls.explainLoop";
const EXPLAIN_SCHEME = "accls-explain";
// The command's earlier name: servers before accls.checkLoop advertise only it.
const VERIFY_LOOP = "accls.verifyLoop";
const CHECK_LOOP_NAMES = [CHECK_LOOP, VERIFY_LOOP];
// Settings only the client reads; the server would report them as unknown.
const CLIENT_ONLY = ["server", "trace"];
/** VS Code language ids of Fortran documents (free and fixed form). */
const FORTRAN = ["fortran", "fortran90", "FortranFreeForm", "FortranFixedForm"];

let client: LanguageClient | undefined;
let output: vscode.OutputChannel | undefined;

/** The `accls.*` settings as one plain object, without the client-only keys. */
function serverSettings(scope?: vscode.Uri): Record<string, unknown> {
  const config = vscode.workspace.getConfiguration(SECTION, scope);
  const plain = JSON.parse(JSON.stringify(config)) as Record<string, unknown>;
  for (const key of CLIENT_ONLY) {
    delete plain[key];
  }
  return plain;
}

function serverCommand(): string {
  const path = vscode.workspace.getConfiguration(SECTION).get<string>("server.path");
  return path && path.trim() !== "" ? path : "accls";
}

function createClient(channel: vscode.OutputChannel): LanguageClient {
  const command = serverCommand();
  const serverOptions: ServerOptions = {
    run: { command, args: ["--stdio"] },
    debug: { command, args: ["--stdio"] },
  };
  const clientOptions: LanguageClientOptions = {
    documentSelector: [
      { scheme: "file", language: "c" },
      { scheme: "file", language: "cpp" },
      ...FORTRAN.map((language) => ({ scheme: "file", language })),
    ],
    initializationOptions: serverSettings(),
    synchronize: { configurationSection: SECTION },
    outputChannel: channel,
    // The hover's last line links to accls.explainLoop; only that command may run.
    markdown: { isTrusted: { enabledCommands: [EXPLAIN_LOOP] } },
    middleware: {
      // When the server advertises accls.checkLoop, the client registers the
      // command itself; from the palette it has no arguments, so add the cursor.
      executeCommand: async (command, args, next) => {
        if (command === EXPLAIN_LOOP) {
          // From the hover's link or a code lens it has the loop; from the
          // palette, add the cursor. Either way the report opens beside the code.
          const filled = args.length > 0 ? args : cursorArgument();
          if (filled) {
            await showExplanation(filled[0]);
          }
          return undefined;
        }
        if (!CHECK_LOOP_NAMES.includes(command)) {
          return (await next(command, args)) as unknown;
        }
        const filled = args.length > 0 ? args : cursorArgument();
        if (!filled) {
          return undefined;
        }
        try {
          const result: unknown = await vscode.window.withProgress(
            { location: vscode.ProgressLocation.Window, title: "accls: checking loop" },
            async () => (await next(command, filled)) as unknown,
          );
          showResult(result);
          return result;
        } catch (error) {
          showFailure(error);
          return undefined;
        }
      },
      workspace: {
        // The server pulls `accls` with workspace/configuration; drop the keys
        // it does not know so it does not warn about them.
        configuration: async (params, token, next) => {
          const result = await next(params, token);
          if (!Array.isArray(result)) {
            return result;
          }
          return result.map((item: unknown, i) => {
            const section = params.items[i]?.section;
            if (section !== SECTION || typeof item !== "object" || item === null) {
              return item;
            }
            const copy = { ...(item as Record<string, unknown>) };
            for (const key of CLIENT_ONLY) {
              delete copy[key];
            }
            return copy;
          });
        },
      },
    },
  };
  return new LanguageClient("accls", "accls", serverOptions, clientOptions);
}

/** A one-line summary of the server's answer to accls.checkLoop. */
function describe(result: unknown): string {
  if (typeof result !== "object" || result === null) {
    return "accls: no answer from the server.";
  }
  const answer = result as {
    loop?: { line?: number } | null;
    pragma?: string | null;
    withdrawn?: string | null;
    reasons?: string[];
    validation?: { compiles?: boolean | null; race_free?: boolean | null };
  };
  const reasons = (answer.reasons ?? []).join("; ");
  if (!answer.loop) {
    return `accls: no loop at the cursor${reasons ? ` (${reasons})` : ""}.`;
  }
  const where = `accls: loop at line ${(answer.loop.line ?? 0) + 1}`;
  if (answer.withdrawn) {
    return `${where}: the suggestion was withdrawn: ${answer.withdrawn}`;
  }
  if (!answer.pragma) {
    return `${where}: no safe pragma${reasons ? ` (${reasons})` : ""}.`;
  }
  const checks: string[] = [];
  const compiles = answer.validation?.compiles;
  checks.push(compiles === true ? "compiles" : compiles === false ? "does not compile" : "not compiled (no compiler found)");
  const raceFree = answer.validation?.race_free;
  if (raceFree !== undefined && raceFree !== null) {
    checks.push(raceFree ? "no race found" : "race found");
  }
  return `${where}: ${answer.pragma}: ${checks.join(", ")}.`;
}

/** The argument of accls.checkLoop: the active C editor's URI and cursor. */
function cursorArgument(): unknown[] | undefined {
  const editor = vscode.window.activeTextEditor;
  if (!client || !editor || !["c", "cpp", ...FORTRAN].includes(editor.document.languageId)) {
    void vscode.window.showWarningMessage("accls: open a C file and put the cursor on a loop.");
    return undefined;
  }
  const uri = client.code2ProtocolConverter.asUri(editor.document.uri);
  const position = client.code2ProtocolConverter.asPosition(editor.selection.active);
  return [{ uri, position }];
}

function showResult(result: unknown): void {
  output?.appendLine(`${CHECK_LOOP}: ${JSON.stringify(result, null, 2)}`);
  void vscode.window.showInformationMessage(describe(result));
}

function showFailure(error: unknown): void {
  const message = error instanceof Error ? error.message : String(error);
  output?.appendLine(`${CHECK_LOOP} failed: ${message}`);
  void vscode.window.showErrorMessage(`accls: check loop failed: ${message}`);
}

/** Used only when the server does not advertise accls.checkLoop itself. */
async function checkLoop(): Promise<void> {
  if (!client || client.state !== State.Running) {
    void vscode.window.showWarningMessage("accls: the server is not running.");
    return;
  }
  const args = cursorArgument();
  if (!args) {
    return;
  }
  const running = client;
  try {
    const result: unknown = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Window, title: "accls: checking loop" },
      () =>
        running.sendRequest(ExecuteCommandRequest.type, {
          command: CHECK_LOOP,
          arguments: args,
        }),
    );
    showResult(result);
  } catch (error) {
    showFailure(error);
  }
}

/** The virtual document of a loop's report: its query is the command's argument. */
function explanationUri(argument: unknown): vscode.Uri {
  const where = argument as { uri?: string; position?: { line?: number } };
  const file = (where.uri ?? "loop").split("/").pop() ?? "loop";
  const line = (where.position?.line ?? 0) + 1;
  return vscode.Uri.from({
    scheme: EXPLAIN_SCHEME,
    path: `/${file}-line-${line}.md`,
    query: JSON.stringify(argument),
  });
}

const explanations = new vscode.EventEmitter<vscode.Uri>();

/** Open the report on a loop as a Markdown preview beside the code. */
async function showExplanation(argument: unknown): Promise<void> {
  const uri = explanationUri(argument);
  explanations.fire(uri); // a report already open is asked for again
  try {
    await vscode.commands.executeCommand("markdown.showPreviewToSide", uri);
  } catch {
    // Without the Markdown extension, show the text itself.
    const document = await vscode.workspace.openTextDocument(uri);
    await vscode.window.showTextDocument(document, vscode.ViewColumn.Beside);
  }
}

/** The `accls-explain:` documents: the server's answer to accls.explainLoop. */
const explanationProvider: vscode.TextDocumentContentProvider = {
  onDidChange: explanations.event,
  async provideTextDocumentContent(uri: vscode.Uri): Promise<string> {
    if (!client || client.state !== State.Running) {
      return "# accls: the server is not running\n";
    }
    try {
      const answer: unknown = await client.sendRequest(ExecuteCommandRequest.type, {
        command: EXPLAIN_LOOP,
        arguments: [JSON.parse(uri.query) as unknown],
      });
      const markdown = (answer as { markdown?: unknown } | null)?.markdown;
      return typeof markdown === "string" ? markdown : "# accls: no answer from the server\n";
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      output?.appendLine(`${EXPLAIN_LOOP} failed: ${message}`);
      return `# accls: explain this loop failed\n\n${message}\n`;
    }
  },
};

/** Start a fresh client; it re-reads accls.server.path and the settings. */
async function startServer(channel: vscode.OutputChannel): Promise<void> {
  client = createClient(channel);
  try {
    await client.start();
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    void vscode.window.showErrorMessage(
      `accls: cannot start "${serverCommand()} --stdio" (${message}). ` +
        "Install accls or set accls.server.path.",
    );
  }
}

async function restartServer(): Promise<void> {
  if (client) {
    await client.stop().catch(() => undefined);
  }
  if (output) {
    await startServer(output);
  }
}

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  output = vscode.window.createOutputChannel("accls");
  context.subscriptions.push(
    output,
    vscode.commands.registerCommand("accls.restartServer", restartServer),
    vscode.commands.registerCommand("accls.showOutput", () => output?.show(true)),
    explanations,
    vscode.workspace.registerTextDocumentContentProvider(EXPLAIN_SCHEME, explanationProvider),
    vscode.workspace.onDidChangeConfiguration((event) => {
      if (event.affectsConfiguration(`${SECTION}.server.path`)) {
        void restartServer();
      }
    }),
  );
  await startServer(output);
  // The client registers a command for each one the server advertises, so only
  // add ours when the server did not. A server that knows the command only by
  // its earlier name gets it by that name; one that knows neither answers with
  // a clear error.
  const known = await vscode.commands.getCommands(true);
  if (!known.includes(CHECK_LOOP)) {
    const handler = known.includes(VERIFY_LOOP)
      ? async () => vscode.commands.executeCommand(VERIFY_LOOP)
      : checkLoop;
    context.subscriptions.push(vscode.commands.registerCommand(CHECK_LOOP, handler));
  }
}

export async function deactivate(): Promise<void> {
  if (client) {
    await client.stop().catch(() => undefined);
    client = undefined;
  }
}
