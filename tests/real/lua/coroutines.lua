-- coroutines.lua N — generators, producer/consumer pipelines, wrap,
-- yields across pcall, status transitions.
local n = tonumber(arg[1]) or 1000

local function gen(limit)
  return coroutine.wrap(function()
    for i = 1, limit do coroutine.yield(i) end
  end)
end
local s = 0
for v in gen(n) do s = s + v end
print("generator", s)

-- pipeline: producer -> filter -> mapper -> consumer
local function producer(k)
  return coroutine.create(function()
    for i = 1, k do coroutine.yield(i * 7 % 101) end
    return nil
  end)
end
local function filter(src, pred)
  return coroutine.create(function()
    while true do
      local _, v = coroutine.resume(src)
      if v == nil then return nil end
      if pred(v) then coroutine.yield(v) end
    end
  end)
end
local function map(src, f)
  return coroutine.create(function()
    while true do
      local _, v = coroutine.resume(src)
      if v == nil then return nil end
      coroutine.yield(f(v))
    end
  end)
end
local p = map(filter(producer(n), function(v) return v % 2 == 1 end), function(v) return v * v end)
local total, items = 0, 0
while true do
  local _, v = coroutine.resume(p)
  if v == nil then break end
  total, items = total + v, items + 1
end
print("pipeline", items, total)

-- passing values both ways
local co = coroutine.create(function(a)
  local acc = a
  while true do
    local x = coroutine.yield(acc)
    if x == nil then return "done", acc end
    acc = acc + x
  end
end)
local _, r = coroutine.resume(co, 1)
for i = 1, n // 2 do _, r = coroutine.resume(co, i) end
print("twoway", r, coroutine.resume(co), coroutine.status(co))

-- yield across pcall, errors inside coroutines
local co2 = coroutine.create(function()
  local ok, err = pcall(function()
    coroutine.yield("inside")
    error("boom")
  end)
  coroutine.yield(ok, (tostring(err):gsub("^.-:%d+: ", "")))
  return "end"
end)
print("pcall-yield", coroutine.resume(co2))
print("pcall-yield", coroutine.resume(co2))
print("pcall-yield", coroutine.resume(co2))
print("dead", coroutine.resume(co2))

-- many short-lived coroutines (allocation and GC of threads)
local made = 0
for i = 1, n // 5 do
  local c = coroutine.wrap(function(x) local y = coroutine.yield(x + 1); return x + y end)
  made = made + c(i) + c(2)
end
print("many", made, coroutine.isyieldable(), coroutine.running() ~= nil)
