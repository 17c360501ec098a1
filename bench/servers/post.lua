wrk.method = "POST"
wrk.body = '{"name":"Rex","categoryId":3,"status":"available"}'
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Authorization"] = "Bearer bench-key"
