-- closures.lua N — closures and upvalues, recursion, varargs, metatables,
-- error handling, tail calls.
local n = tonumber(arg[1]) or 1000

local function counter(step)
  local c = 0
  return function() c = c + step; return c end
end
local cs = {}
for i = 1, 50 do cs[i] = counter(i) end
local total = 0
for r = 1, n do total = total + cs[r % 50 + 1]() end
print("counters", total)

-- shared upvalues closed at loop exit
local getters = {}
for i = 1, 10 do
  local x = i * i
  getters[i] = { get = function() return x end, set = function(v) x = v end }
end
getters[3].set(-1)
local g = 0
for i = 1, 10 do g = g + getters[i].get() end
print("upvalues", g)

-- recursion
local function fib(k) if k < 2 then return k end return fib(k - 1) + fib(k - 2) end
local function ack(m, k)
  if m == 0 then return k + 1 end
  if k == 0 then return ack(m - 1, 1) end
  return ack(m - 1, ack(m, k - 1))
end
local depth = 10
while fib(depth) < n * 5 do depth = depth + 1 end
print("recursion", depth, fib(depth), ack(2, 3 + n % 7))

-- tail calls do not grow the stack
local function loop(k, acc) if k == 0 then return acc end return loop(k - 1, acc + k) end
print("tailcall", loop(n * 10, 0))

-- varargs
local function sum(...)
  local s = 0
  for i = 1, select("#", ...) do s = s + (select(i, ...)) end
  return s, ...
end
local vs = 0
for i = 1, n // 10 do vs = vs + sum(i, i + 1, i + 2, i + 3) end
print("varargs", vs, select("#", sum(1, 2, 3)))

-- metatables: arithmetic, index, newindex, call, tostring, eq, lt, len
local V = {}
V.__index = V
local function vec(x, y) return setmetatable({ x = x, y = y }, V) end
V.__add = function(a, b) return vec(a.x + b.x, a.y + b.y) end
V.__mul = function(a, s) return vec(a.x * s, a.y * s) end
V.__eq = function(a, b) return a.x == b.x and a.y == b.y end
V.__lt = function(a, b) return a.x * a.x + a.y * a.y < b.x * b.x + b.y * b.y end
V.__len = function(a) return a.x + a.y end
V.__tostring = function(a) return "(" .. a.x .. "," .. a.y .. ")" end
V.__call = function(a, k) return a.x * k + a.y end
function V:dot(b) return self.x * b.x + self.y * b.y end
local acc = vec(0, 0)
for i = 1, n do acc = acc + vec(i % 7, -(i % 5)) * 2 end
print("meta", tostring(acc), #acc, acc(3), acc:dot(vec(1, 1)), vec(1, 2) == vec(1, 2), vec(1, 1) < vec(2, 2))

local log = {}
local proxy = setmetatable({}, {
  __index = function(_, k) return "default-" .. k end,
  __newindex = function(t, k, v) log[#log + 1] = k; rawset(t, k, v) end,
})
proxy.a = 1; proxy.b = 2
print("proxy", proxy.a, proxy.zzz, table.concat(log, ","))

-- errors and pcall/xpcall, error objects, close variables
local caught = 0
for i = 1, n // 10 do
  local ok, err = pcall(function() if i % 3 == 0 then error({ code = i }) end return i end)
  if not ok then caught = caught + err.code end
end
local ok, msg = xpcall(function() local t = nil; return t.x end, function(m) return "handled: " .. tostring(m):gsub("^.-:%d+: ", "") end)
print("errors", caught, ok, msg)
do
  local closed = {}
  do
    local a <close> = setmetatable({}, { __close = function() closed[#closed + 1] = "a" end })
    local b <close> = setmetatable({}, { __close = function() closed[#closed + 1] = "b" end })
  end
  print("close", table.concat(closed, ","))
end
