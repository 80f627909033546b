//! The one-step task requests of a modern server: `tasks/get`,
//! `tasks/update` and `tasks/cancel`.

use crate::client::api::ModernClient;
use crate::client::error::ClientError;
use crate::wire::{
    DetailedTask, EmptyResult, InputResponses, TASKS_CANCEL, TASKS_GET, TASKS_UPDATE, TaskIdParams,
    UpdateTaskParams,
};

impl ModernClient<'_> {
    /// `tasks/get`; the task it returns must be the one asked for.
    pub async fn get_task(&self, task_id: &str) -> Result<DetailedTask, ClientError> {
        let params = TaskIdParams {
            task_id: task_id.to_owned(),
        };
        let task: DetailedTask = self.client.request_complete(TASKS_GET, &params).await?;
        if task.task.task_id != task_id {
            return Err(ClientError::InvalidResponse(format!(
                "tasks/get for task `{task_id}` returned task `{}`",
                task.task.task_id
            )));
        }
        Ok(task)
    }

    /// `tasks/update`: answers some of the task's input requests, by key.
    pub async fn update_task(
        &self,
        task_id: &str,
        input_responses: InputResponses,
    ) -> Result<(), ClientError> {
        let params = UpdateTaskParams {
            task_id: task_id.to_owned(),
            input_responses,
        };
        let _: EmptyResult = self.client.request_complete(TASKS_UPDATE, &params).await?;
        Ok(())
    }

    /// `tasks/cancel`.
    pub async fn cancel_task(&self, task_id: &str) -> Result<(), ClientError> {
        let params = TaskIdParams {
            task_id: task_id.to_owned(),
        };
        let _: EmptyResult = self.client.request_complete(TASKS_CANCEL, &params).await?;
        Ok(())
    }
}
