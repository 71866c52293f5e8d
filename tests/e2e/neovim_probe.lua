-- Run inside headless Neovim by tests/e2e/test_neovim.py, after init.lua has
-- loaded clients/neovim/accls.lua. Asks accls for hover and code actions at the
-- loop through Neovim's own LSP client, applies the OpenACC action, writes what
-- it saw as JSON to vim.g.accls_probe.out, and quits.
local cfg = vim.g.accls_probe
local report = { steps = {} }
local encode = (vim.json and vim.json.encode) or vim.fn.json_encode

local function step(name)
  table.insert(report.steps, name)
end

local function buffer_clients(bufnr)
  if vim.lsp.get_clients then
    return vim.lsp.get_clients({ bufnr = bufnr })
  end
  return vim.tbl_values(vim.lsp.buf_get_clients(bufnr))
end

local function accls_client(bufnr)
  for _, client in ipairs(buffer_clients(bufnr)) do
    -- server_capabilities is filled in when the initialize answer arrives.
    if client.name == "accls" and client.server_capabilities ~= nil then
      return client
    end
  end
  return nil
end

-- buf_request_sync answers {client_id = {result, error}}; keep accls's only.
local function only(responses, client)
  local response = responses and responses[client.id]
  if response == nil then
    return { missing = true }
  end
  return { result = response.result, error = response.err or response.error }
end

local function probe()
  local bufnr = vim.api.nvim_get_current_buf()
  report.filetype = vim.bo[bufnr].filetype
  local v = vim.version()
  report.nvim = string.format("%d.%d.%d", v.major, v.minor, v.patch)
  local client
  local attached = vim.wait(cfg.timeout_ms, function()
    client = accls_client(bufnr)
    return client ~= nil
  end, 50)
  if not attached then
    error("accls did not attach within " .. cfg.timeout_ms .. " ms")
  end
  step("attached")
  -- The snippet's on_attach maps K and <leader>ca in this buffer.
  report.keymaps = {}
  for _, lhs in ipairs({ "K", "<leader>ca" }) do
    local map = vim.fn.maparg(lhs, "n", false, true)
    report.keymaps[lhs] = map.buffer == 1
  end
  report.root_dir = client.config.root_dir

  local line = cfg.line
  local text = vim.api.nvim_buf_get_lines(bufnr, line - 1, line, true)[1]
  vim.api.nvim_win_set_cursor(0, { line, (text:find("for", 1, true) or 1) - 1 })
  local encoding = client.offset_encoding or "utf-16"

  local hover_params = vim.lsp.util.make_position_params(0, encoding)
  report.hover = only(
    vim.lsp.buf_request_sync(bufnr, "textDocument/hover", hover_params, cfg.timeout_ms),
    client
  )
  step("hover")

  report.code_lens = only(
    vim.lsp.buf_request_sync(
      bufnr,
      "textDocument/codeLens",
      { textDocument = { uri = vim.uri_from_bufnr(bufnr) } },
      cfg.timeout_ms
    ),
    client
  )
  step("codeLens")

  local range_params = vim.lsp.util.make_range_params(0, encoding)
  range_params.context = { diagnostics = {} }
  report.code_actions = only(
    vim.lsp.buf_request_sync(bufnr, "textDocument/codeAction", range_params, cfg.timeout_ms),
    client
  )
  step("codeAction")

  -- :AcclsCheckLoop asks the server to check the loop's pragma and says what it
  -- answered with vim.notify.
  local notify = vim.notify
  vim.notify = function(message, level)
    report.check_loop = { message = message, level = level }
  end
  vim.cmd("AcclsCheckLoop")
  vim.wait(cfg.timeout_ms, function()
    return report.check_loop ~= nil
  end, 50)
  vim.notify = notify
  step("checkLoop")

  -- Apply the OpenACC action as :lua vim.lsp.buf.code_action() would: resolve it
  -- if it has no edit yet, apply the edit, then run its command.
  local chosen
  for _, action in ipairs(report.code_actions.result or {}) do
    if type(action.title) == "string" and action.title:find("Parallelize with OpenACC", 1, true) then
      chosen = action
      break
    end
  end
  if chosen then
    if chosen.edit == nil and chosen.command == nil then
      local resolved = client.request_sync("codeAction/resolve", chosen, cfg.timeout_ms, bufnr)
      report.resolved = resolved
      chosen = resolved and resolved.result or chosen
      step("resolve")
    end
    if chosen.edit then
      vim.lsp.util.apply_workspace_edit(chosen.edit, encoding)
      step("applied")
    end
    local command = chosen.command
    if type(command) == "table" and type(command.command) == "string" then
      report.command = client.request_sync("workspace/executeCommand", command, cfg.timeout_ms, bufnr)
      step("command")
    end
  end
  report.lines = vim.api.nvim_buf_get_lines(bufnr, 0, -1, true)

  -- Then edit the inserted pragma as a user would; the server follows the line
  -- and records the new text. A request afterwards flushes the pending didChange.
  if cfg.edited_pragma and chosen then
    for i, text in ipairs(report.lines) do
      if vim.trim(text):find("#pragma acc", 1, true) == 1 then
        local indent = text:match("^%s*")
        vim.api.nvim_buf_set_lines(bufnr, i - 1, i, true, { indent .. cfg.edited_pragma })
        local params = vim.lsp.util.make_position_params(0, encoding)
        vim.lsp.buf_request_sync(bufnr, "textDocument/hover", params, cfg.timeout_ms)
        step("edited")
        break
      end
    end
  end

  -- Diagnostics arrive after a debounce; give them a moment, but do not require them.
  vim.wait(cfg.diagnostics_ms, function()
    return #vim.diagnostic.get(bufnr) > 0
  end, 50)
  report.diagnostics = vim.diagnostic.get(bufnr)
  step("diagnostics")

  -- :AcclsExplainLoop on the loop (it moved down by the inserted pragma) opens
  -- the report in a scratch buffer beside the code.
  for i, text in ipairs(vim.api.nvim_buf_get_lines(bufnr, 0, -1, true)) do
    if vim.trim(text):find("for (int i", 1, true) == 1 then
      vim.api.nvim_win_set_cursor(0, { i, (text:find("for", 1, true) or 1) - 1 })
      break
    end
  end
  local before = #vim.api.nvim_list_bufs()
  vim.cmd("AcclsExplainLoop")
  vim.wait(cfg.timeout_ms, function()
    return #vim.api.nvim_list_bufs() > before
  end, 50)
  for _, buf in ipairs(vim.api.nvim_list_bufs()) do
    if vim.bo[buf].filetype == "markdown" then
      report.explain = {
        lines = vim.api.nvim_buf_get_lines(buf, 0, -1, true),
        buftype = vim.bo[buf].buftype,
        windows = #vim.api.nvim_list_wins(),
        current_is_source = vim.api.nvim_get_current_buf() == bufnr,
      }
    end
  end
  step("explain")
end

local ok, err = pcall(probe)
if not ok then
  report.error = tostring(err)
end
local file = io.open(cfg.out, "w")
file:write(encode(report))
file:close()
vim.cmd("qa!")
