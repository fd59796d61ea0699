-- wrk script for bench/http/wrk.ts: POSTs the JSON bodies of the file named by BODIES_FILE
-- (one per line) in turn. Each request is formatted once, on first use, so that wrk's own CPU
-- per request stays a table lookup (its Lua runs on the cores the server is measured on).
local bodies = {}
for line in io.lines(os.getenv("BODIES_FILE")) do
  if #line > 0 then bodies[#bodies + 1] = line end
end
local formatted = {}
local next_body = 0
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"

request = function()
  next_body = next_body % #bodies + 1
  local text = formatted[next_body]
  if text == nil then
    text = wrk.format(nil, wrk.path, nil, bodies[next_body])
    formatted[next_body] = text
  end
  return text
end
