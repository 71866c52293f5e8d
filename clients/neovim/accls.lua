-- accls for Neovim: start the accls language server on C and C++ buffers.
--
-- Works on Neovim 0.7 (vim.lsp.start_client + vim.lsp.buf_attach_client, as in
-- Debian 12) and on 0.8 and later (vim.lsp.start). Put this file in
-- ~/.config/nvim/lua/accls.lua and call, from init.lua:
--
--   require("accls").setup({
--     -- cmd = { "accls", "--stdio" },          -- the server command
--     -- settings = { model = "openmp" },       -- the accls.* settings (camelCase)
--     -- keymaps = true,                        -- K: hover, <leader>ca: code actions
--     -- codelens = true,                       -- verdicts above loops, <leader>cl runs one
--   })
--
-- :AcclsCheckLoop compile-checks and race-checks the pragma for the loop under
-- the cursor (the server's accls.checkLoop; it runs nothing).
-- :AcclsExplainLoop opens the full report on the loop under the cursor in a
-- scratch buffer (Markdown), beside the code.
--
-- or paste the file into init.lua and replace `return M` with `M.setup({})`.

local M = {}

local defaults = {
  cmd = { "accls", "--stdio" },
  filetypes = { "c", "cpp", "fortran" },
  -- Files that mark a project root; the file's own directory is the fallback.
  root_markers = { "compile_commands.json", ".git", "Makefile", "CMakeLists.txt" },
  -- Sent as initializationOptions and answered to workspace/configuration
  -- (section "accls"). Keys as in the VS Code extension, without "accls.":
  -- model, target, kernels, assumeNoAlias, reassociateFloat, validate, includePaths,
  -- compileCommands, backend = { kind, url, model, path, ... },
  -- compiler = { path, flags }, feedback = { enabled, path }, codeLens.
  settings = {},
  keymaps = true,
  -- Show the server's code lenses (refreshed on BufEnter, CursorHold, InsertLeave).
  codelens = true,
  on_attach = nil,
}

-- Search upwards from `path` for a root marker (works without vim.fs, new in 0.8).
local function find_root(path, markers)
  local dir = vim.fn.fnamemodify(path, ":p:h")
  for _, marker in ipairs(markers) do
    local found = vim.fn.findfile(marker, dir .. ";")
    if found == "" then
      found = vim.fn.finddir(marker, dir .. ";")
    end
    if found ~= "" then
      -- A directory keeps its trailing slash through :p, so strip "/.git" too.
      return (vim.fn.fnamemodify(found, ":p:h"):gsub("/%.git/?$", ""))
    end
  end
  return dir
end

local function set_keymaps(bufnr)
  local opts = { buffer = bufnr, silent = true }
  vim.keymap.set("n", "K", vim.lsp.buf.hover, opts)
  vim.keymap.set({ "n", "v" }, "<leader>ca", vim.lsp.buf.code_action, opts)
  -- vim.diagnostic.jump replaced goto_prev/goto_next in 0.11.
  local jump = vim.diagnostic.jump
  local prev = jump and function() jump({ count = -1, float = true }) end or vim.diagnostic.goto_prev
  local following = jump and function() jump({ count = 1, float = true }) end
    or vim.diagnostic.goto_next
  vim.keymap.set("n", "[d", prev, opts)
  vim.keymap.set("n", "]d", following, opts)
  vim.keymap.set("n", "<leader>e", vim.diagnostic.open_float, opts)
end

-- A one-line summary of the server's answer to accls.checkLoop.
local function describe(answer)
  if type(answer) ~= "table" then
    return "accls: no answer from the server."
  end
  local reasons = table.concat(type(answer.reasons) == "table" and answer.reasons or {}, "; ")
  local why = reasons ~= "" and (" (" .. reasons .. ")") or ""
  if type(answer.loop) ~= "table" then
    return "accls: no loop at the cursor" .. why .. "."
  end
  local where = "accls: loop at line " .. ((answer.loop.line or 0) + 1)
  if type(answer.withdrawn) == "string" then
    return where .. ": the suggestion was withdrawn: " .. answer.withdrawn
  end
  if type(answer.pragma) ~= "string" then
    return where .. ": no safe pragma" .. why .. "."
  end
  local validation = type(answer.validation) == "table" and answer.validation or {}
  local checks = {}
  if validation.compiles == true then
    table.insert(checks, "compiles")
  elseif validation.compiles == false then
    table.insert(checks, "does not compile")
  else
    table.insert(checks, "not compiled (no compiler found)")
  end
  if validation.race_free == true then
    table.insert(checks, "no race found")
  elseif validation.race_free == false then
    table.insert(checks, "race found")
  end
  return where .. ": " .. answer.pragma .. ": " .. table.concat(checks, ", ") .. "."
end

-- Ask the server to check the pragma for the loop under the cursor.
function M.check_loop(client, bufnr)
  local params = vim.lsp.util.make_position_params(0, client.offset_encoding or "utf-16")
  local command = {
    command = "accls.checkLoop",
    arguments = { { uri = params.textDocument.uri, position = params.position } },
  }
  client.request("workspace/executeCommand", command, function(err, result)
    if err then
      vim.notify("accls: check loop failed: " .. (err.message or tostring(err)), vim.log.levels.ERROR)
    else
      vim.notify(describe(result), vim.log.levels.INFO)
    end
  end, bufnr)
end

-- Show `markdown` in a scratch buffer in a split beside the code, cursor kept.
function M.show_explanation(markdown, title)
  local from = vim.api.nvim_get_current_win()
  vim.cmd("vsplit")
  local buf = vim.api.nvim_create_buf(false, true)
  vim.api.nvim_win_set_buf(0, buf)
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, vim.split(markdown, "\n", { plain = true }))
  vim.bo[buf].filetype = "markdown"
  vim.bo[buf].bufhidden = "wipe"
  vim.bo[buf].modifiable = false
  pcall(vim.api.nvim_buf_set_name, buf, "accls://" .. (title or "explain"))
  vim.api.nvim_set_current_win(from)
  return buf
end

local function show_answer(err, result)
  if err then
    vim.notify("accls: explain this loop failed: " .. (err.message or tostring(err)), vim.log.levels.ERROR)
  elseif type(result) == "table" and type(result.markdown) == "string" then
    M.show_explanation(result.markdown, result.title)
  else
    vim.notify("accls: no answer from the server.", vim.log.levels.WARN)
  end
end

-- Ask the server for the full report on the loop at `argument` ({uri, position}).
function M.explain(client, bufnr, argument)
  local command = { command = "accls.explainLoop", arguments = { argument } }
  client.request("workspace/executeCommand", command, show_answer, bufnr)
end

-- The full report on the loop under the cursor.
function M.explain_loop(client, bufnr)
  local params = vim.lsp.util.make_position_params(0, client.offset_encoding or "utf-16")
  M.explain(client, bufnr, { uri = params.textDocument.uri, position = params.position })
end

-- A code lens (or the hover's hint) naming accls.explainLoop opens the report
-- here instead of sending the command blindly.
vim.lsp.commands["accls.explainLoop"] = function(command, ctx)
  local client = vim.lsp.get_client_by_id(ctx.client_id)
  if client and command.arguments and command.arguments[1] then
    M.explain(client, ctx.bufnr, command.arguments[1])
  end
end

local function start_codelens(client, bufnr)
  if not (client.server_capabilities or client.resolved_capabilities or {}).codeLensProvider then
    return
  end
  local group = vim.api.nvim_create_augroup("accls_codelens_" .. bufnr, { clear = true })
  vim.api.nvim_create_autocmd({ "BufEnter", "CursorHold", "InsertLeave" }, {
    group = group,
    buffer = bufnr,
    callback = function()
      vim.lsp.codelens.refresh()
    end,
  })
  vim.keymap.set("n", "<leader>cl", vim.lsp.codelens.run, { buffer = bufnr, silent = true })
  vim.lsp.codelens.refresh()
end

-- The client configuration for one buffer; the same table for both APIs.
function M.config(opts, bufnr)
  local path = vim.api.nvim_buf_get_name(bufnr)
  return {
    name = "accls",
    cmd = opts.cmd,
    root_dir = find_root(path, opts.root_markers),
    init_options = opts.settings,
    settings = { accls = opts.settings },
    on_attach = function(client, attached)
      vim.api.nvim_buf_create_user_command(attached, "AcclsCheckLoop", function()
        M.check_loop(client, attached)
      end, { desc = "accls: check the pragma for the loop under the cursor" })
      vim.api.nvim_buf_create_user_command(attached, "AcclsExplainLoop", function()
        M.explain_loop(client, attached)
      end, { desc = "accls: the full report on the loop under the cursor" })
      if opts.codelens then
        start_codelens(client, attached)
      end
      if opts.keymaps then
        set_keymaps(attached)
      end
      if opts.on_attach then
        opts.on_attach(client, attached)
      end
    end,
  }
end

-- Neovim 0.7: one client per root directory, started once and attached to each buffer.
local clients_by_root = {}

local function attach_07(config, bufnr)
  local id = clients_by_root[config.root_dir]
  local client = id and vim.lsp.get_client_by_id(id)
  if not client or client.is_stopped() then
    id = vim.lsp.start_client(config)
    if not id then
      vim.notify("accls: could not start " .. table.concat(config.cmd, " "), vim.log.levels.ERROR)
      return nil
    end
    clients_by_root[config.root_dir] = id
  end
  vim.lsp.buf_attach_client(bufnr, id)
  return id
end

-- Start (or reuse) the accls client for `bufnr`; returns the client id.
function M.attach(opts, bufnr)
  local config = M.config(opts, bufnr)
  if vim.fn.has("nvim-0.8") == 1 then
    -- vim.lsp.start reuses a running client with the same name and root_dir.
    return vim.lsp.start(config, { bufnr = bufnr })
  end
  return attach_07(config, bufnr)
end

function M.setup(user)
  -- Shallow on purpose: a user's cmd or filetypes list replaces the default
  -- whole, where tbl_deep_extend would merge the lists index by index.
  local opts = vim.tbl_extend("force", defaults, user or {})
  local group = vim.api.nvim_create_augroup("accls", { clear = true })
  vim.api.nvim_create_autocmd("FileType", {
    group = group,
    pattern = opts.filetypes,
    callback = function(args)
      if vim.bo[args.buf].buftype == "" then
        M.attach(opts, args.buf)
      end
    end,
  })
  return opts
end

return M
