-- tables.lua N — array and hash parts, rehash, table library, sorting.
-- Deterministic: keys are strings and numbers only (pointer-keyed tables
-- hash by address, which differs between builds), fixed random seed.
local n = tonumber(arg[1]) or 1000
math.randomseed(20260501)

-- array part: append, insert, remove, concat
local a = {}
for i = 1, n do a[#a + 1] = i * 3 % 1009 end
-- (near the end: each insert/remove shifts the elements after it)
for i = 1, n // 10 do table.insert(a, #a - (i * 7) % 100, -i) end
for i = 1, n // 20 do table.remove(a, #a - (i * 13) % 100) end
local sum = 0
for i = 1, #a do sum = sum + a[i] end
print("array", #a, sum)

-- sort with the default comparator, with a custom one, and a stable check
table.sort(a)
local ok = true
for i = 2, #a do if a[i - 1] > a[i] then ok = false end end
table.sort(a, function(x, y) return x % 97 < y % 97 or (x % 97 == y % 97 and x < y) end)
print("sorted", ok, a[1], a[#a], a[#a // 2])

-- hash part: string keys, growth and deletion, next()
local h = {}
for i = 1, n do h["k" .. (i * 7919 % n)] = i end
local count, acc = 0, 0
for k, v in pairs(h) do count = count + 1; acc = (acc + v * #k) % 1000003 end
for i = 1, n, 3 do h["k" .. i] = nil end
local left = 0
for _ in pairs(h) do left = left + 1 end
print("hash", count, acc, left)

-- mixed keys: floats, negative integers, booleans
local m = {}
for i = 1, n do
  m[i + 0.5] = i
  m[-i] = i * 2
end
m[true] = "t"; m[false] = "f"
local fs = 0
for i = 1, n do fs = fs + m[i + 0.5] + m[-i] end
print("mixed", fs, m[true], m[false])

-- matrix multiply on nested tables
local size = math.max(4, math.floor((n / 10) ^ 0.5))
local A, B = {}, {}
for i = 1, size do
  A[i], B[i] = {}, {}
  for j = 1, size do
    A[i][j] = math.random(0, 9)
    B[i][j] = (i + j) % 7
  end
end
local trace = 0
for i = 1, size do
  local row = 0
  for k = 1, size do row = row + A[i][k] * B[k][i] end
  trace = trace + row
end
print("matrix", size, trace)
print("move", table.concat(table.move({1, 2, 3, 4, 5}, 2, 4, 1), ","),
      select("#", table.unpack(a, 1, 10)))
