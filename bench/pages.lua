-- wrk script for bench/pages.sh: asks the paths of a file (one a line) in turn, round robin, each
-- connection taking the next one. Every request is formatted once, before the clock starts.
-- usage: wrk -s bench/pages.lua URL -- PATHS_FILE
local requests = {}
local next_index = 1

function init(args)
  local file = assert(io.open(args[1], "r"), "cannot open " .. tostring(args[1]))
  for path in file:lines() do
    if path ~= "" then requests[#requests + 1] = wrk.format("GET", path) end
  end
  file:close()
  assert(#requests > 0, "no paths in " .. args[1])
end

function request()
  local r = requests[next_index]
  next_index = next_index % #requests + 1
  return r
end
