-- gc.lua N — allocation churn, full and incremental/generational GC,
-- weak tables, finalizers.  Output avoids addresses and timing.
local n = tonumber(arg[1]) or 1000

-- churn: build and drop lists of tables and strings
local keep = {}
for round = 1, 10 do
  local list = nil
  for i = 1, n do list = { value = i, next = list, tag = "r" .. round .. "i" .. (i % 100) } end
  local len = 0
  while list do len = len + 1; list = list.next end
  keep[round % 3 + 1] = { len = len }
  if round % 4 == 0 then collectgarbage("collect") end
end
print("churn", keep[1].len, keep[2].len, keep[3].len)

-- finalizers run once per collected object (order-independent count)
local finalized = 0
for i = 1, n // 10 do setmetatable({}, { __gc = function() finalized = finalized + 1 end }) end
collectgarbage("collect")
collectgarbage("collect")
print("finalizers", finalized)

-- weak values are cleared once the only strong references go
local cache = setmetatable({}, { __mode = "v" })
local strong = {}
for i = 1, n // 10 do
  local obj = { id = i }
  cache[i] = obj
  if i % 4 == 0 then strong[#strong + 1] = obj end
end
collectgarbage("collect")
local alive = 0
for i = 1, n // 10 do if cache[i] then alive = alive + 1 end end
print("weak", alive, #strong)

-- generational mode, then back to incremental, with steps
collectgarbage("generational")
local g = {}
for i = 1, n do g[i % 64 + 1] = { i, tostring(i) } end
collectgarbage("incremental")
for _ = 1, 20 do collectgarbage("step", 0) end
local big = {}
for i = 1, n do big[i] = string.rep("x", i % 50) end
big = nil
collectgarbage("collect")
print("modes", #g, g[1][2], collectgarbage("isrunning"))
