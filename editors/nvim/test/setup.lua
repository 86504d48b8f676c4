-- What each headless test does first, as a user's setup would: the shipped config on
-- 'runtimepath', the repository's .venv/bin on PATH, the server enabled. Returns the repository's
-- folder and how long a test waits for the server.
local here = vim.fs.dirname(vim.fs.abspath(debug.getinfo(1, 'S').source:sub(2)))
local config_dir = vim.fs.dirname(here)
local repo = vim.fs.dirname(vim.fs.dirname(config_dir))

vim.opt.runtimepath:prepend(config_dir)
vim.cmd.runtime('plugin/relavium_lsp.lua')
vim.env.PATH = repo .. '/.venv/bin:' .. vim.env.PATH
vim.lsp.enable('relavium_lsp')

return { repo = repo, WAIT_MS = 20000 }
