-- accls through nvim-lspconfig, as a custom server (lspconfig does not ship it).
-- Paste into init.lua after lspconfig is installed.
local configs = require("lspconfig.configs")
local util = require("lspconfig.util")

if not configs.accls then
  configs.accls = {
    default_config = {
      cmd = { "accls", "--stdio" },
      filetypes = { "c", "cpp", "fortran" },
      root_dir = util.root_pattern("compile_commands.json", ".git"),
      single_file_support = true,
      -- The accls.* settings without the prefix; see clients/neovim/README.md.
      init_options = {},
      settings = { accls = {} },
    },
  }
end

require("lspconfig").accls.setup({
  init_options = { model = "openacc", target = "gpu" },
  settings = { accls = { model = "openacc", target = "gpu" } },
})

-- Neovim 0.11 and later need no plugin at all:
--   vim.lsp.config("accls", {
--     cmd = { "accls", "--stdio" },
--     filetypes = { "c", "cpp", "fortran" },
--     root_markers = { "compile_commands.json", ".git" },
--     init_options = { model = "openacc" },
--   })
--   vim.lsp.enable("accls")
